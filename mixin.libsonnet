// The aix_exporter monitoring mixin, in the shape of the community's monitoring mixins:
//   (import 'mixin.libsonnet').prometheusRules     the recording and alerting rules
//   (import 'mixin.libsonnet').grafanaDashboards   the dashboards, by file name
// built from one _config: the series selector, every threshold and window, defined once in
// exporter/aix_exporter/monitoring.json (the report reads the same file). Override in your own
// jsonnet, for example a deployment with its own job and tenant labels:
//   (import 'mixin.libsonnet') + { _config+:: { aixSelector: 'job="lpar",tenant="tsm"' } }
// python3 alerts/build_rules.py and python3 dashboards/build_dashboards.py write the committed files.
local settings = (import 'exporter/aix_exporter/monitoring.json').config;
{ _config+:: { [k]: settings[k].value for k in std.objectFields(settings) } }
+ (import 'alerts/alerts.libsonnet')
+ (import 'dashboards/dashboards.libsonnet')

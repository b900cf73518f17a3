// The dashboards (grafanaDashboards), read through ../mixin.libsonnet: each source in src/ is a
// function of the mixin's _config, so the selector and the windows they share with the rules
// are set once.
{
  grafanaDashboards+:: {
    'aix-4k-vs-16m.json': (import 'src/aix-4k-vs-16m.jsonnet')($._config),
    'aix-before-after.json': (import 'src/aix-before-after.jsonnet')($._config),
    'aix-fleet-census.json': (import 'src/aix-fleet-census.jsonnet')($._config),
    'aix-large-pages.json': (import 'src/aix-large-pages.jsonnet')($._config),
    'aix-lock-contention.json': (import 'src/aix-lock-contention.jsonnet')($._config),
    'aix-overview.json': (import 'src/aix-overview.jsonnet')($._config),
    'aix-tape.json': (import 'src/aix-tape.jsonnet')($._config),
    'aix-tsm-server.json': (import 'src/aix-tsm-server.jsonnet')($._config),
  },
}

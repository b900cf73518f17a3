// Compiled to aix-rules.yml by alerts/build_rules.py; Prometheus loads the YAML.
(import 'mixin.libsonnet').prometheusRules

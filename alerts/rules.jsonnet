// Compiled to aix-rules.yml by alerts/build.py; Prometheus loads the YAML.
(import 'mixin.libsonnet').prometheusRules

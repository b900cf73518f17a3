// A small local stand-in for grafonnet: dashboard, row, panel, target and variable builders
// producing Grafana's classic dashboard JSON model (schemaVersion 39).
{
  local ds = { type: 'prometheus', uid: '${datasource}' },
  datasource:: ds,

  target(expr, legend='', refId='A', instant=false, format='time_series'):: {
    datasource: ds,
    expr: expr,
    legendFormat: legend,
    refId: refId,
    [if instant then 'instant']: true,
    [if instant then 'range']: false,
    [if format != 'time_series' then 'format']: format,
  },

  local panel(type, title, targets, unit, pos, desc) = {
    type: type,
    title: title,
    datasource: ds,
    gridPos: pos,
    targets: [
      t { refId: std.char(65 + i) }
      for i in std.range(0, std.length(targets) - 1)
      for t in [targets[i]]
    ],
    fieldConfig: { defaults: { unit: unit }, overrides: [] },
    [if desc != '' then 'description']: desc,
  },

  pos(x, y, w, h):: { x: x, y: y, w: w, h: h },

  timeseries(title, targets, unit='short', pos, desc='', stack=false, min=null, max=null):: panel('timeseries', title, targets, unit, pos, desc) {
    fieldConfig+: { defaults+: {
      custom: { fillOpacity: if stack then 40 else 10, stacking: { mode: if stack then 'normal' else 'none', group: 'A' }, lineWidth: 1 },
      [if min != null then 'min']: min,
      [if max != null then 'max']: max,
    } },
    options: { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
  },

  stat(title, targets, unit='short', pos, desc='', thresholds=null):: panel('stat', title, targets, unit, pos, desc) {
    options: { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area', textMode: 'auto' },
    [if thresholds != null then 'fieldConfig']+: { defaults+: { thresholds: { mode: 'absolute', steps: thresholds } } },
  },

  table(title, targets, unit='short', pos, desc='', transformations=[]):: panel('table', title, targets, unit, pos, desc) {
    options: { showHeader: true, cellHeight: 'sm' },
    transformations: transformations,
  },

  row(title, y, collapsed=false):: { type: 'row', title: title, collapsed: collapsed, gridPos: { x: 0, y: y, w: 24, h: 1 }, panels: [] },

  datasourceVariable:: {
    name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus',
    current: { selected: false, text: 'default', value: 'default' }, hide: 0, refresh: 1, regex: '', options: [],
  },

  // a code's name as a label (PromQL cannot turn a value into a label, so one selection per code,
  // highest first): a table then shows the name in its own column, in Grafana and in Perses alike;
  // names: [[code, name, ...], ...]; by: the labels kept (report/census.py's named() is the same)
  named(expr, label, names, by=['instance', 'job']):: 'max by (%s) (%s)' % [std.join(', ', by + [label]), std.join(' or ', [
    'label_replace((%s) == %d, "%s", "%s", "", "")' % [expr, n[0], label, n[1]] for n in names])],

  // label matchers joined, the empty ones left out (a deployment may set no selector at all)
  matchers(list):: std.join(',', [m for m in list if m != '']),

  // the LPAR picker: the instances of the series the selector (the mixin's aixSelector) matches
  instanceVariable(selector=''):: {
    name: 'instance', label: 'LPAR', type: 'query', datasource: ds,
    query: { query: 'label_values(aix_exporter_build_info{%s}, instance)' % selector, refId: 'instance' },
    definition: 'label_values(aix_exporter_build_info{%s}, instance)' % selector,
    current: { selected: true, text: ['All'], value: ['$__all'] }, hide: 0, refresh: 2, includeAll: true, multi: true, allValue: '.*', sort: 1, regex: '', options: [],
  },

  customVariable(name, label, values, default):: {
    name: name, label: label, type: 'custom', query: std.join(',', values),
    current: { text: default, value: default, selected: true },
    options: [{ text: v, value: v, selected: v == default } for v in values],
    hide: 0, includeAll: false, multi: false,
  },

  annotation(name, expr, color, title):: {
    name: name, datasource: ds, enable: true, iconColor: color,
    expr: expr, step: '60s', titleFormat: title, useValueForTime: false,
  },

  dashboard(title, uid, description, panels, variables=[], annotations=[], time='now-6h', selector=''):: {
    title: title,
    uid: uid,
    description: description,
    tags: ['aix', 'aix_exporter'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '1m',
    time: { from: time, to: 'now' },
    timepicker: {},
    timezone: '',
    links: [],
    templating: { list: [$.datasourceVariable, $.instanceVariable(selector)] + variables },
    annotations: { list: [{
      builtIn: 1, datasource: { type: 'grafana', uid: '-- Grafana --' }, enable: true, hide: true,
      iconColor: 'rgba(0, 211, 255, 1)', name: 'Annotations & Alerts', type: 'dashboard',
    }] + annotations },
    // panel ids in order
    panels: [panels[i] { id: i + 1 } for i in std.range(0, std.length(panels) - 1)],
  },
}

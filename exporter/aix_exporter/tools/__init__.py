"""Tools that run the exporter's own parts offline: the history and replay writer
(``aix-exporter simulate``) and, later, importers. They may use every part of the package;
nothing in the exporter's scrape path imports them."""

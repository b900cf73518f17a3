// Every threshold, duration and selector of the rules, in one place.
// Override in your own jsonnet: (import 'mixin.libsonnet') + { _config+:: { pinMissRatio: 0.05 } }
{
  _config+:: {
    // series selector added to every raw metric (your scrape job for AIX LPARs)
    aixSelector: 'job=~"aix.*"',
    runbookBase: 'https://github.com/aix-exporter/aix_exporter/blob/main/alerts/runbooks/',

    // 16 MB pool
    largePagePoolFreeWarningRatio: 0.10,  // warn below 10 % free
    largePagePoolFreeWarningFor: '15m',
    largePagePoolExhaustedFor: '5m',
    largePagePoolForecastWindow: '2h',  // predict_linear look-back
    largePagePoolForecastHours: 4,  // critical when predicted to run out within 4 h
    largePagePoolForecastFor: '30m',

    // mandatory large pages (LARGE_PAGE_DATA=M): free pages below the likely growth
    mandatoryGrowthWindow: '1h',  // deriv() look-back of the process's 16 MB use
    mandatoryGrowthHorizonSeconds: 7200,  // growth expected over the next 2 h ...
    mandatoryMinHeadroomPages: 16,  // ... but never less than one heap segment (16 pages)
    mandatoryFor: '5m',

    // silent fallback to 4 KB pages (LARGE_PAGE_DATA=Y, pool exhausted)
    fallbackWindow: '30m',
    fallback4kGrowthBytes: 32 * 1024 * 1024,  // 4 KB use grew by more than 32 MiB in the window
    fallbackFor: '15m',

    // pool configured but the server runs without large pages
    unusedFor: '30m',

    // sizing rule of the case study: heap segments x 16 + 32
    pagesPerHeapSegment: 16,
    extraLargePages: 32,
    undersizedFor: '1h',
    oversizedFactor: 2,  // configured > 2 x recommended ...
    oversizedMinFreePages: 64,  // ... and more than 1 GiB of pinned pages free
    oversizedFor: '6h',

    // pin-lock contention
    pinMissRatio: 0.10,
    sysPerUserRatio: 3,
    contentionFor: '15m',

    // tape throughput drop while drives are busy
    tapeBusyRatio: 0.5,
    tapeDropRatio: 0.5,  // below half of the drive's usual (90th percentile) throughput
    tapeBaselineWindow: '1d',
    tapeFor: '15m',

    // TSM activity log
    tsmWindow: '1h',

    // vmo lgpg_regions boot value differs from current
    lgpgPendingFor: '1h',

    // exporter health
    collectorFailingFor: '10m',
    collectorStaleSeconds: 3600,

    // memory
    pagingSpaceUsedRatio: 0.80,
    pagingSpaceFor: '15m',
    freeListRatio: 0.01,
    freeListFor: '15m',
  },
}

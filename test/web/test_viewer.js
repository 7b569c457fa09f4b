/* test_viewer.js -- the browser viewer in Debian's Chromium (headless, via
 * playwright-core): what is drawn (pixels at known thread rows), the side
 * panel after a double-click, search highlights, zoom, findings, the
 * compare view, opening a file, the first frame `mprof html` builds (and
 * its stand-in in windows of other sizes), a
 * trace in slices (from file:// and HTTP; no first frame built), labels
 * that are HTML or script, the legend, counter toggles, idle bands, the
 * keys the help lists, a pane drawn again when its size changes, the
 * desktop viewer's display list for the same trace, size and view, and
 * the findings panel against `mprof report --json`, a big trace read by
 * its index.
 *
 *   node test_viewer.js ARTIFACTS NET_CTF [TEST...]   (run by test_viewer.sh;
 *   TEST: run only the tests of these names)
 */
'use strict';
const fs = require('fs');
const { launch, only } = require('./viewer_page');
const { testNet, testFirstFrame, testStandIn, testStdin, testOpenFile, testProgressive, testDamaged, testSlicedPage,
  testSlicedHttp } = require('./test_viewer_load');
const { testStory, testXss, testGenerated, testCompare, testCompareRuns, testLegend, testCounters, testIdleBand,
  testKeys, testPaneResize, testSameLayout } = require('./test_viewer_draw');
const { testFindingsHung, testFindingsRetry, testFindingsCapture } = require('./test_viewer_findings');
const { testBigDensity, testBigWindow, testBigHtml, testBigHtmlSparse, testBigBudget,
  testBigIndexRejected, testBigReopen, testBigUnread } = require('./test_viewer_big');

(async () => {
  const { context, profile } = await launch();
  let failed = false;
  for (const [name, run] of [['net.ctf', testNet], ['first frame', testFirstFrame], ['stand-in', testStandIn], ['story', testStory],
    ['xss (directory)', (c) => testXss(c, 'xss/index.html')],
    ['xss (single file)', (c) => testXss(c, 'xss.html')],
    ['generated', testGenerated], ['compare', testCompare], ['compare runs', testCompareRuns],
    ['stdin', testStdin], ['open, drop, help', testOpenFile], ['progressive load', testProgressive],
    ['damaged file', testDamaged], ['sliced page', testSlicedPage], ['sliced page over http', testSlicedHttp],
    ['legend', testLegend], ['counter toggles', testCounters], ['idle band', testIdleBand], ['keys', testKeys],
    ['pane resize', testPaneResize], ['same layout', testSameLayout],
    ['findings (hung run)', testFindingsHung], ['findings (retries)', testFindingsRetry],
    ['findings (capture)', testFindingsCapture], ['big: density', testBigDensity], ['big: window', testBigWindow],
    ['big: mprof html', testBigHtml], ['big: mprof html of a sparse 1 GiB', testBigHtmlSparse],
    ['big: over the budget', testBigBudget], ['big: index not believed', testBigIndexRejected],
    ['big: another file opened mid-read', testBigReopen], ['big: a window not read', testBigUnread]]) {
    if (only.length && !only.includes(name)) continue;
    try {
      await run(context);
      console.log('ok', name);
    } catch (e) {
      failed = true;
      console.log('not ok', name, e.message);
    }
  }
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
})();

// Puppeteer drives Debian's Chromium (puppeteer-config.json): an install downloads no browser,
// whether or not PUPPETEER_SKIP_DOWNLOAD is set.
module.exports = { skipDownload: true };

// Nothing wterm-specific: the package needs no Next.js setting. The build goes to
// $CONSUMER_NEXT_DIST (tests/consumer/bundlers.sh) so the app directory stays clean.
export default {
  distDir: process.env.CONSUMER_NEXT_DIST ?? ".next",
};

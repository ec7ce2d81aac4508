// Nothing wterm-specific: the package needs no Next.js setting (package README, "Next.js").
export default {};

//! Credentials and refusals: [`Secret`] (constant-time, redacted), [`Refusal`] (status and
//! error code of every refused request) and [`ladder`] (the `/mcp/*` refusal ladder).

pub mod ladder;
pub mod refusal;
pub mod secret;

pub use refusal::Refusal;
pub use secret::Secret;

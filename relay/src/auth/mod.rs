//! Credentials and refusals: [`Secret`] (constant-time, redacted) and [`Refusal`] (status and
//! error code of every refused request).

pub mod refusal;
pub mod secret;

pub use refusal::Refusal;
pub use secret::Secret;

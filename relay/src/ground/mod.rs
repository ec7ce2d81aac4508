//! The ground layer: what every layer above uses and that uses nothing above it.
//!
//! - [`author`]: who wrote to a terminal, as clients get it;
//! - [`clock`]: epoch milliseconds and RFC 3339 times;
//! - [`limits`]: every limit, with its unit and what happens at it;
//! - [`refusal`]: [`Refusal`], the status, code and detail of every refused request, and
//!   [`refusal::unknown_or_off`], the one builder of the indistinguishable 404;
//! - [`secret`]: [`Secret`], compared in constant time and never printed;
//! - [`fields`]: reading request fields from a JSON object body, with the contract's refusals;
//! - [`config`]: the serve options resolved with the environment and the state directory;
//! - [`program`], [`profiles`]: what a session runs, and the named programs a launch may start;
//! - [`text`]: [`text::strip_controls`], program-supplied strings made safe for clients;
//! - [`shell_integration`]: the scripts that make bash, zsh and fish report their commands, and
//!   how a shell the relay starts gets them.

pub mod author;
pub mod clock;
pub mod config;
pub mod fields;
pub mod limits;
pub mod net;
pub mod profiles;
pub mod program;
pub mod refusal;
pub mod secret;
pub mod shell_integration;
pub mod text;
pub mod tls;

pub use refusal::Refusal;
pub use secret::Secret;

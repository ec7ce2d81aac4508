//! Integration tests of the real `wterm-relay` binary: one test binary, one module per topic.

mod pty;
mod routes;
mod secrets;
mod support;
mod ws;

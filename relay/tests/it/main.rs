//! Integration tests of the real `wterm-relay` binary: one test binary, one module per topic.

mod agent;
mod audit;
mod authors;
mod budget;
mod commands;
mod flood;
mod holders;
mod ladder;
mod mcp_endpoint;
mod mcp_routes;
mod ops;
mod persist;
mod pty;
mod reads;
mod redaction;
mod reflow;
mod routes;
mod secret_prompts;
mod secrets;
mod shell_integration;
mod support;
mod tls;
mod turns;
mod ws;

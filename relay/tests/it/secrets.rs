//! The page token: minted once into the state directory, read back, never logged.

use std::os::unix::fs::PermissionsExt as _;

use crate::support::{Options, Relay};

#[tokio::test]
async fn the_page_token_is_minted_once_with_mode_0600() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("nested/state");
    let opts = || Options {
        env_token: None,
        state_dir: Some(state.clone()),
        ..Options::default()
    };

    let mut first = Relay::start_with(opts()).await;
    let file = state.join("page_token");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&state), 0o700);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        saved, first.token,
        "the printed URL carries the saved token"
    );
    assert_eq!(
        first.token.len(),
        43,
        "32 bytes, URL-safe base64 without padding"
    );
    assert!(first
        .token
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    assert_eq!(first.get("/info").await.status, 200);
    assert!(
        !first.log().contains(&first.token),
        "the token reached the log"
    );
    first.terminate().await;

    let second = Relay::start_with(opts()).await;
    assert_eq!(second.token, saved, "a restart keeps the token");
    assert_eq!(second.get("/info").await.status, 200);
}

#[tokio::test]
async fn an_env_token_wins_and_is_not_written() {
    let relay = Relay::start().await;
    assert!(relay.token.starts_with("test-token-"));
    assert!(!relay.state_dir.join("page_token").exists());
    assert!(!relay.log().contains(&relay.token));
}

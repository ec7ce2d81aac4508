//! TLS on the relay's own listener: HTTPS and WSS with a certificate made in the
//! test (openssl), HSTS only when asked, and plain HTTP beyond loopback refused at start.

use std::path::Path;
use std::sync::Arc;

use futures_util::{SinkExt as _, StreamExt as _};
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_rustls::rustls;
use tokio_rustls::TlsConnector;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

use crate::support::{Options, Relay};

/// A certificate for 127.0.0.1 and localhost signed by a throwaway CA, made in `dir` by
/// `scripts/make-test-cert.sh`: (CA to trust, certificate, key).
fn make_cert(dir: &Path) -> (String, String, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/make-test-cert.sh");
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(dir)
        .output()
        .expect("run make-test-cert.sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = |n: &str| dir.join(n).display().to_string();
    (f("ca.pem"), f("cert.pem"), f("key.pem"))
}

fn connector(cert: &str) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(cert).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

async fn tls_stream(port: u16, cert: &str) -> tokio_rustls::client::TlsStream<TcpStream> {
    let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    connector(cert)
        .connect(name, tcp)
        .await
        .expect("TLS handshake")
}

/// One HTTP/1.1 request over TLS; the whole response as text.
async fn https(port: u16, cert: &str, request: &str) -> String {
    let mut s = tls_stream(port, cert).await;
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}

async fn start_tls(extra: &[&str]) -> (Relay, tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = make_cert(dir.path());
    let mut args = vec!["--tls-cert".to_owned(), cert, "--tls-key".into(), key];
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let relay = Relay::start_with(Options {
        args,
        ..Options::default()
    })
    .await;
    (relay, dir, ca)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_and_wss_with_a_certificate_of_the_test() {
    let (relay, _dir, cert) = start_tls(&[]).await;
    assert!(relay.url.starts_with("https://127.0.0.1:"), "{}", relay.url);
    let port = relay.port;
    let page = https(
        port,
        &cert,
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("<html") || page.contains("<!doctype") || page.contains("<!DOCTYPE"),
        "{page}"
    );
    assert!(
        !page
            .to_ascii_lowercase()
            .contains("strict-transport-security"),
        "{page}"
    );
    // No plain HTTP on the TLS port: the request is not served.
    let mut plain = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    plain
        .write_all(b"GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        plain.read_to_end(&mut out),
    )
    .await;
    assert!(
        !String::from_utf8_lossy(&out).contains("200 OK"),
        "plain HTTP answered"
    );

    // The websocket over wss: the page's own origin is https now.
    let stream = tls_stream(port, &cert).await;
    let mut req = format!("wss://127.0.0.1:{port}/ws")
        .into_client_request()
        .unwrap();
    let headers = req.headers_mut();
    let protocols = format!("wterm.v1, bearer.{}", relay.token);
    headers.insert(
        "Sec-WebSocket-Protocol",
        HeaderValue::from_str(&protocols).unwrap(),
    );
    headers.insert(
        "Origin",
        HeaderValue::from_str(&format!("https://127.0.0.1:{port}")).unwrap(),
    );
    let (mut ws, resp) = tokio_tungstenite::client_async(req, stream)
        .await
        .expect("wss handshake");
    assert_eq!(resp.headers()["Sec-WebSocket-Protocol"], "wterm.v1");
    let first = tokio::time::timeout(std::time::Duration::from_secs(15), ws.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let Message::Text(t) = first else {
        panic!("{first:?}")
    };
    assert!(t.contains("\"session\""), "{t}");
    // Type and see the echo.
    ws.send(Message::Binary(b"echo tls-$((40+2))\r".to_vec().into()))
        .await
        .unwrap();
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
    while !String::from_utf8_lossy(&seen).contains("tls-42") {
        let m = tokio::time::timeout_at(deadline, ws.next())
            .await
            .expect("echo in time");
        if let Some(Ok(Message::Binary(b))) = m {
            seen.extend_from_slice(&b);
        }
    }
    // An http origin is a foreign one under TLS.
    let stream = tls_stream(port, &cert).await;
    let mut req = format!("wss://127.0.0.1:{port}/ws")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        HeaderValue::from_str(&protocols).unwrap(),
    );
    req.headers_mut().insert(
        "Origin",
        HeaderValue::from_str(&format!("http://127.0.0.1:{port}")).unwrap(),
    );
    assert!(tokio_tungstenite::client_async(req, stream).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hsts_only_when_asked() {
    let (relay, _dir, cert) = start_tls(&["--hsts"]).await;
    let page = https(
        relay.port,
        &cert,
        "GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(
        page.to_ascii_lowercase()
            .contains("strict-transport-security: max-age=31536000"),
        "{page}"
    );
}

/// Runs the binary to its exit (it must not start); its stderr.
async fn refused_start(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_wterm-relay"))
        .args(["--port", "0", "--state-dir"])
        .arg(dir.path().join("state"))
        .args(args)
        .env("SHELL", "/bin/bash")
        .stdin(std::process::Stdio::null())
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(20), out)
        .await
        .expect("the relay exited in time")
        .unwrap();
    assert!(
        !out.status.success(),
        "started: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_beyond_loopback_is_refused_without_the_flag() {
    let err = refused_start(&["--listen", "0.0.0.0"]).await;
    assert!(
        err.contains("refusing to serve plain HTTP on 0.0.0.0"),
        "{err}"
    );
    assert!(
        err.contains("--tls-cert") && err.contains("--allow-plain-http"),
        "{err}"
    );
    // Unusable TLS files: said which and what is accepted.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "junk").unwrap();
    let junk = junk.display().to_string();
    let err = refused_start(&["--tls-cert", &junk, "--tls-key", &junk]).await;
    assert!(
        err.contains("junk.pem") && err.contains("BEGIN CERTIFICATE"),
        "{err}"
    );
    let err = refused_start(&["--tls-cert", &junk]).await;
    assert!(err.contains("--tls-key"), "{err}");
    // With TLS, 0.0.0.0 starts (no plain-HTTP warning).
    let (_, cert, key) = make_cert(dir.path());
    let relay = Relay::start_with(Options {
        args: vec![
            "--listen".into(),
            "0.0.0.0".into(),
            "--tls-cert".into(),
            cert,
            "--tls-key".into(),
            key,
        ],
        ..Options::default()
    })
    .await;
    assert!(relay.url.starts_with("https://"), "{}", relay.url);
    assert!(!relay.log().contains("WARNING"), "{}", relay.log());
}

//! Whose line it is (spec broker-api.md "Turn-taking", wterm-core `agent::turns`): an agent's
//! input that presses Enter while a person at a page is typing a line is refused with
//! `person_typing` on every route that submits, nothing sent; keys without Enter still go, and
//! once the person has cleared their line the agent's command runs. Real bash, a real page
//! websocket, the relay's routes.

use std::time::Duration;

use serde_json::json;

use crate::commands::{ready, run};
use crate::support::{HttpResponse, Mcp};

fn refused_as_person_typing(r: &HttpResponse) {
    assert_eq!(r.status, 409, "{}", r.body);
    let v = r.json();
    assert_eq!(v["error"], "person_typing", "{v}");
    let detail = v["detail"].as_str().unwrap();
    assert!(
        detail.contains("half-typed") && detail.contains("read_screen"),
        "{v}"
    );
}

/// Waits until the screen's last filled row is the bare prompt `$`.
async fn until_empty_prompt(mcp: &Mcp, id: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let text = mcp.read(json!({"id": id})).await["text"]
            .as_str()
            .unwrap()
            .to_owned();
        if text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::trim_end)
            == Some("$")
        {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the line never emptied:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every route that submits a line, each with Enter.
async fn every_submit_refused(mcp: &Mcp, id: u64) {
    refused_as_person_typing(
        &mcp.post("/mcp/input", json!({"id": id, "data": "agent-line\r"}))
            .await,
    );
    refused_as_person_typing(
        &mcp.post("/mcp/input", json!({"id": id, "data": "agent-line\n"}))
            .await,
    );
    refused_as_person_typing(
        &mcp.post("/mcp/keys", json!({"id": id, "keys": ["Enter"]}))
            .await,
    );
    refused_as_person_typing(
        &mcp.post("/mcp/run", json!({"id": id, "command": "echo agent-line"}))
            .await,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_enter_onto_a_persons_line_is_refused_on_every_route() {
    let (relay, mcp, id) = ready().await;
    let mut page = relay.attach(Some(id)).await;
    // The person begins a line at the page; once the relay has it (its echo is on the
    // screen), every agent submit is refused. (An agent's call that reaches the relay before
    // the person's keys goes first, and their keys land after its line.)
    page.send_input(b"echo person-half").await;
    mcp.wait_text(id, "echo person-half").await;
    every_submit_refused(&mcp, id).await;

    // Long after their last key, their half-typed line on the prompt still holds it. (The
    // wait is for the clock to pass the typing window, not for a state.)
    let window = wterm_core::agent::turns::PERSON_TYPING_MS;
    tokio::time::sleep(Duration::from_millis(u64::from(window) + 200)).await;
    every_submit_refused(&mcp, id).await;
    // An agent's other keys first (End, a space) do not make the line the agent's: the Enter
    // after them is still refused.
    for first in [json!({"keys": ["C-e"]}), json!({"keys": ["End"]})] {
        let mut call = first.clone();
        call["id"] = json!(id);
        let r = mcp.post("/mcp/keys", call).await;
        assert_eq!(r.status, 200, "{}", r.body);
        refused_as_person_typing(
            &mcp.post("/mcp/keys", json!({"id": id, "keys": ["Enter"]}))
                .await,
        );
    }
    let r = mcp.post("/mcp/input", json!({"id": id, "data": " "})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    refused_as_person_typing(
        &mcp.post("/mcp/input", json!({"id": id, "data": "\r"}))
            .await,
    );
    // Nothing the agent sent reached the line.
    let screen = mcp.read(json!({"id": id})).await;
    let text = screen["text"].as_str().unwrap();
    assert!(!text.contains("agent-line"), "{text}");

    // A key without Enter still goes (here: the person's Ctrl-U, which also ends their line).
    page.send_input(b"\x15").await;
    let r = run(&mcp, id, "echo agent-$((6*7))").await;
    assert_eq!(r["exit_code"], 0, "{r}");
    assert_eq!(r["output"], "agent-42", "{r}");
    // The person's own Enter ran their line: nothing of it is refused afterwards.
    page.send_input(b"echo person-whole\r").await;
    // Its output and the next prompt (the echoed line alone would match "person-whole\n").
    mcp.wait_text(id, "\nperson-whole\n$").await;
    run(&mcp, id, "true").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pages_terminal_replies_are_not_typing() {
    let (relay, mcp, id) = ready().await;
    let mut page = relay.attach(Some(id)).await;
    // A focus-in report, as a page sends when a program turned focus reporting on: it starts
    // with ESC, and no one typed it.
    page.send_input(b"\x1b[I").await;
    let r = run(&mcp, id, "echo ok-$((1+1))").await;
    assert_eq!(r["exit_code"], 0, "{r}");
    // When the report reached the relay only after the run began, the tty echoed it into the
    // output (`^[[I`), and the answer says so.
    if r["typeahead"] == true {
        assert!(r["output"].as_str().unwrap().ends_with("ok-2"), "{r}");
    } else {
        assert_eq!(r["output"], "ok-2", "{r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_a_person_types_while_a_command_runs_mark_its_answer_typeahead() {
    let (relay, mcp, id) = ready().await;
    let mut page = relay.attach(Some(id)).await;
    let running = {
        let mcp = mcp.clone();
        tokio::spawn(async move { run(&mcp, id, "sleep 2; echo agent-$((6*7))").await })
    };
    // Once the command runs, the person types (no Enter).
    page.wait_output(b"sleep 2; echo", Duration::from_secs(10))
        .await;
    page.send_input(b"person-typed").await;
    let a = running.await.unwrap();
    assert_eq!(a["typeahead"], true, "{a}");
    assert_eq!(a["exit_code"], 0, "{a}");
    // A run the person did not type during says nothing of it.
    page.send_input(b"\x15").await;
    until_empty_prompt(&mcp, id).await;
    let r = run(&mcp, id, "true").await;
    assert!(r.get("typeahead").is_none(), "{r}");
}

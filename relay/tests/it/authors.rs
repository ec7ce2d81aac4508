//! Who submitted each command (wterm-core `cmdlog::Author`, spec `agent-parity.md` "Authors"):
//! a route caller by its scope, a person at a page, the page's own agent by its tool; what the
//! audit log keeps of page input (the agent's text, only that a person submitted a line) and the
//! pages' `agent` frame naming the caller. Real bash, a real page websocket, the relay's routes.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::commands::{ready, run, terminal};
use crate::support::{Got, Mcp, Page};

/// Waits until the window's last finished command is `command`; returns its facts.
pub(crate) async fn last_command(mcp: &Mcp, id: u64, command: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let row = terminal(mcp, id).await;
        let last = &row["shell"]["last_command"];
        if last["command"] == command {
            return last.clone();
        }
        assert!(Instant::now() < deadline, "{command} never ended: {row}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every audit record of the relay with state directory `state`, as JSON.
pub(crate) fn audit_records(state: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(state.join("audit").join("audit.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The next `agent` frame the page gets (output and other frames skipped).
async fn agent_frame(page: &mut Page) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if let Got::Text(v) = page.next().await {
            if v["type"] == "agent" {
                return v;
            }
        }
    }
    panic!("no agent frame");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_writer_is_named_and_a_persons_keys_reach_no_record() {
    let (relay, mcp, id) = ready().await;
    let mut page = relay.attach(Some(id)).await;

    // A route caller, named by its scope (none here).
    let a = run(&mcp, id, "echo route-$((1+1))").await;
    assert_eq!(
        a["submitted_by"],
        json!({"kind": "route_caller", "name": "unscoped"}),
        "{a}"
    );
    let frame = agent_frame(&mut page).await;
    assert_eq!(
        frame["by"],
        json!({"kind": "route_caller", "name": "unscoped"}),
        "{frame}"
    );

    // The person at the page.
    page.send_input(b"echo person-$((2+2))\r").await;
    let last = last_command(&mcp, id, "echo person-$((2+2))").await;
    assert_eq!(last["submitted_by"], json!({"kind": "person"}), "{last}");

    // The page's own agent, as the page says before its input.
    page.send_json(json!({"type": "author", "agent": "type_in_terminal"}))
        .await;
    page.send_input(b"echo page-agent-$((3+3))\r").await;
    let last = last_command(&mcp, id, "echo page-agent-$((3+3))").await;
    assert_eq!(
        last["submitted_by"],
        json!({"kind": "page_agent", "name": "type_in_terminal"}),
        "{last}"
    );
    // Its input is not the person's typing: an agent's run right after it is not refused.
    let a = run(&mcp, id, "echo after-$((4+4))").await;
    assert_eq!(a["output"], "after-8", "{a}");
    assert!(a.get("typeahead").is_none(), "{a}");

    // The person again; then a name that is not a tool's is refused, saying what is accepted.
    page.send_json(json!({"type": "author"})).await;
    page.send_input(b"echo person-again\r").await;
    let last = last_command(&mcp, id, "echo person-again").await;
    assert_eq!(last["submitted_by"], json!({"kind": "person"}), "{last}");
    page.send_json(json!({"type": "author", "agent": "no spaces <b>"}))
        .await;
    let err = page.wait_text("error").await;
    assert_eq!(err["reason"], "bad_message", "{err}");
    assert!(
        err["detail"].as_str().unwrap().contains("\"author\""),
        "{err}"
    );

    // The audit log: the page agent's input with its text, the person's submits without.
    let records = audit_records(&relay.state_dir);
    let page_agent: Vec<&Value> = records
        .iter()
        .filter(|r| r["op"] == "page_agent_input")
        .collect();
    assert_eq!(page_agent.len(), 1, "{records:?}");
    assert_eq!(page_agent[0]["via"], "page");
    assert_eq!(page_agent[0]["window"], id);
    assert_eq!(page_agent[0]["caller"]["client"], "type_in_terminal");
    assert_eq!(page_agent[0]["args"]["tool"], "type_in_terminal");
    assert_eq!(page_agent[0]["args"]["data"], "echo page-agent-$((3+3))\r");
    let submits = records
        .iter()
        .filter(|r| r["op"] == "person_submit")
        .count();
    assert_eq!(submits, 2, "{records:?}");
    let text = std::fs::read_to_string(relay.state_dir.join("audit").join("audit.jsonl")).unwrap();
    assert!(
        !text.contains("person-") && !text.contains("person-again"),
        "a person's keys reached the audit log:\n{text}"
    );
    let (code, out) = crate::audit::verify(&relay.state_dir).await;
    assert_eq!(code, 0, "{out}");
}

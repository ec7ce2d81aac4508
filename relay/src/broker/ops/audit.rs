//! `GET /mcp/audit` (ext, admin), the `audit_log` tool: records of the audit log
//! (`broker::audit`), oldest first, filtered, and the per-window read counts.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::audit::Filter;
use crate::broker::hub::Broker;
use crate::ground::fields::{self, Fields};
use crate::ground::limits::{DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT};
use crate::ground::Refusal;

/// A validated `/mcp/audit` request (query parameters on the route, arguments of the tool).
#[derive(Debug, PartialEq, Eq, JsonSchema)]
pub struct AuditQuery {
    /// Only records of this window: its number (the N of "host:N").
    pub window: Option<u64>,
    /// Only records after this seq: the next_since of the previous answer, to page on.
    pub since: Option<u64>,
    /// Only records of calls that arrived after this time, in epoch milliseconds.
    pub since_ms: Option<u64>,
    /// At most this many records, 1..500 (more is lowered to 500); default 100.
    pub limit: Option<u64>,
}

impl AuditQuery {
    /// The filter of `f`: `window`, `since`, `since_ms` non-negative integers (JSON integers or
    /// decimal strings), `limit` an integer from 1 (lowered to [`MAX_AUDIT_LIMIT`]); anything
    /// else is `400 bad_request` naming the field.
    pub fn from_fields(f: &Fields) -> Result<AuditQuery, Refusal> {
        fields::only(f, &["window", "since", "since_ms", "limit"])?;
        let q = AuditQuery {
            window: fields::opt_count(f, "window", "a window number, e.g. 3")?,
            since: fields::opt_count(f, "since", "a record's seq, a non-negative integer")?,
            since_ms: fields::opt_count(
                f,
                "since_ms",
                "epoch milliseconds, a non-negative integer",
            )?,
            limit: fields::opt_count(f, "limit", "an integer from 1 (at most 500 are answered)")?,
        };
        if q.limit == Some(0) {
            return Err(Refusal::BadRequest(
                "limit: accepted: an integer from 1 (at most 500 are answered)".into(),
            ));
        }
        Ok(q)
    }

    fn filter(&self) -> Filter {
        Filter {
            window: self.window,
            since: self.since,
            since_ms: self.since_ms,
            limit: self.limit.map_or(DEFAULT_AUDIT_LIMIT, |l| {
                l.min(MAX_AUDIT_LIMIT as u64) as usize
            }),
        }
    }
}

impl Operation for AuditQuery {
    const SPEC: Spec = Spec {
        path: "/mcp/audit",
        method: Method::Get,
        tool: "audit_log",
        title: "Read the audit log (admin)",
        description: "Admin: what MCP clients did on this relay, oldest first: one record per \
            action and per refused call (time, window, caller's scope and token fingerprint, \
            operation, a short summary of its arguments, result), and how often each window \
            was read. Page on with since = the answer's next_since.",
        target: Target::None,
        admin_only: true,
        ext: true,
        host: HostArg::Optional,
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    type Answer = Value;

    fn parse(_: &Cx<'_>, f: &Fields) -> Result<Self, Refusal> {
        AuditQuery::from_fields(f)
    }

    /// → `{records: [..], next_since, last_seq, read_logging, reads: [{window, count,
    /// last_ms}]}`; `next_since` is the seq to pass as `since` for the records after these
    /// (the last one answered, or when fewer than `limit` matched, the log's last seq).
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        self.answer(cx.broker).await
    }
}

impl AuditQuery {
    /// The answer of [`Operation::run`], also given to the page realm (`GET /session/audit`,
    /// the person at the page, who holds every window).
    pub async fn answer(self, broker: &Broker) -> Result<Value, Refusal> {
        let filter = self.filter();
        let log = &broker.audit;
        let last_seq = log.last_seq();
        let records = {
            let dir_filter = filter.clone();
            let broker_dir = log.dir().to_path_buf();
            tokio::task::spawn_blocking(move || {
                crate::broker::audit::query_dir(&broker_dir, &dir_filter)
            })
            .await
            .map_err(|_| Refusal::PersistFailed)?
            .map_err(|e| {
                tracing::error!(error = %e, "cannot read the audit log");
                Refusal::PersistFailed
            })?
        };
        let next_since = if records.len() >= filter.limit {
            records.last().and_then(|r| r["seq"].as_u64())
        } else {
            Some(last_seq.max(filter.since.unwrap_or(0)))
        };
        let reads: Vec<Value> = log
            .read_counts()
            .into_iter()
            .map(|(w, c)| json!({"window": w, "count": c.count, "last_ms": c.last_ms}))
            .collect();
        Ok(json!({
            "ok": true,
            "records": records,
            "next_since": next_since,
            "last_seq": last_seq,
            "read_logging": log.logs_reads(),
            "reads": reads,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value) -> Fields {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn filters_from_query_strings_and_numbers() {
        let q = AuditQuery::from_fields(&f(json!({"window": "3", "since": 10, "limit": "9999"})))
            .unwrap();
        assert_eq!(q.window, Some(3));
        assert_eq!(q.since, Some(10));
        assert_eq!(q.filter().limit, MAX_AUDIT_LIMIT);
        assert_eq!(
            AuditQuery::from_fields(&f(json!({})))
                .unwrap()
                .filter()
                .limit,
            DEFAULT_AUDIT_LIMIT
        );
        for bad in [
            json!({"limit": 0}),
            json!({"since": "-1"}),
            json!({"window": "x"}),
            json!({"nope": 1}),
        ] {
            let e = AuditQuery::from_fields(&f(bad.clone())).unwrap_err();
            assert_eq!(e.code(), "bad_request", "{bad}");
        }
    }
}

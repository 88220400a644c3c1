//! Unit tests of the executor's pipeline: every step and every string of open-multi-agent's.

#![allow(clippy::unwrap_used)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::tool::ToolDefinition;

/// A tool that counts its calls and answers `ran <input>`.
fn counting(name: &str, calls: &Arc<AtomicUsize>) -> ToolDefinition {
    let calls = Arc::clone(calls);
    ToolDefinition::new(
        name,
        "counts",
        json!({
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"]
        }),
        move |input: Value, _ctx: ToolContext| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move { ToolResult::text(format!("ran {input}")) }
        },
    )
}

struct Fixture {
    calls: Arc<AtomicUsize>,
    registry: Arc<ToolRegistry>,
}

fn fixture() -> Fixture {
    let calls = Arc::new(AtomicUsize::new(0));
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(counting("t", &calls).with_input_validation(true))
        .unwrap();
    registry
        .register(counting("danger", &calls).with_consequential(true))
        .unwrap();
    registry.register_runtime(counting("rt", &calls)).unwrap();
    Fixture { calls, registry }
}

impl Fixture {
    fn executor(&self) -> ToolExecutor {
        ToolExecutor::new(
            Arc::clone(&self.registry),
            ToolGrants::new().allow(["t", "danger", "missing"]),
        )
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

fn ctx() -> ToolContext {
    ToolContext::new("agent-1")
}

async fn run(
    executor: &ToolExecutor,
    name: &str,
    input: Value,
    ctx: &ToolContext,
) -> (String, bool) {
    let r = executor.execute(name, input, ctx).await;
    assert!(r.model_output.is_none());
    (r.data, r.is_error)
}

fn err(text: &str) -> (String, bool) {
    (text.to_owned(), true)
}

#[tokio::test]
async fn runs_a_granted_tool() {
    let f = fixture();
    let got = run(&f.executor(), "t", json!({"n": 1}), &ctx()).await;
    assert_eq!(got, ("ran {\"n\":1}".to_owned(), false));
    assert_eq!(f.calls(), 1);
}

#[tokio::test]
async fn unknown_tool() {
    let f = fixture();
    let got = run(&f.executor(), "missing", json!({}), &ctx()).await;
    assert_eq!(
        got,
        err("Tool \"missing\" is not registered in the ToolRegistry.")
    );
}

#[tokio::test]
async fn not_granted_and_runtime_added() {
    let f = fixture();
    let executor = ToolExecutor::new(Arc::clone(&f.registry), ToolGrants::new().allow(["t"]));
    assert_eq!(
        run(&executor, "danger", json!({"n": 1}), &ctx()).await,
        err(
            "Tool \"danger\" is not granted to this agent. Grant it by name with \
             ToolGrants::allow (the agent's allowed tools), or register it with \
             ToolRegistry::register_runtime."
        )
    );
    // Runtime-added: granted by registration...
    assert!(!run(&executor, "rt", json!({"n": 1}), &ctx()).await.1);
    // ...but the denylist wins.
    let denying = ToolExecutor::new(Arc::clone(&f.registry), ToolGrants::new().deny(["rt"]));
    assert_eq!(
        run(&denying, "rt", json!({"n": 1}), &ctx()).await,
        err(
            "Tool \"rt\" is not granted to this agent. It is in the agent's disallowed tools; \
             remove it from ToolGrants::deny to grant it."
        )
    );
    assert_eq!(f.calls(), 1);
    let names: Vec<String> = executor
        .granted_tools()
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(names, ["t", "rt"]);
    assert!(denying.granted_tools().is_empty());
}

#[tokio::test]
async fn aborted_before_start() {
    let f = fixture();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let got = run(
        &f.executor(),
        "t",
        json!({"n": 1}),
        &ctx().with_cancel(cancel),
    )
    .await;
    assert_eq!(got, err("Tool \"t\" was aborted before execution began."));
    assert_eq!(f.calls(), 0);
}

#[tokio::test]
async fn invalid_input_never_reaches_gate_or_tool() {
    let f = fixture();
    let gate_calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&gate_calls);
    let executor = f.executor().with_gate(gate_fn(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        async { Ok(ToolCallDecision::Allow) }
    }));
    assert_eq!(
        run(&executor, "t", json!({"n": "one", "m": 2}), &ctx()).await,
        err("Invalid input for tool \"t\":\n- /n: \"one\" is not of type \"integer\"")
    );
    assert_eq!(
        run(&executor, "t", json!({}), &ctx()).await,
        err("Invalid input for tool \"t\":\n- /: \"n\" is a required property")
    );
    assert_eq!((f.calls(), gate_calls.load(Ordering::SeqCst)), (0, 0));
    // Without a validator the same input runs.
    assert!(!run(&executor, "danger", json!({}), &ctx()).await.1);
    assert_eq!((f.calls(), gate_calls.load(Ordering::SeqCst)), (1, 1));
}

#[tokio::test]
async fn gate_sees_the_call() {
    let f = fixture();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let executor = f.executor().with_gate(gate_fn(move |call| {
        log.lock().unwrap().push(format!(
            "{} {} {} {:?} {:?} {}",
            call.tool_name,
            call.input,
            call.agent_name,
            call.run_id,
            call.task_id,
            call.consequential
        ));
        async { Ok(ToolCallDecision::Allow) }
    }));
    let ctx = ctx().with_run_id("r1").with_task_id("k9");
    run(&executor, "t", json!({"n": 2}), &ctx).await;
    run(
        &executor,
        "danger",
        json!({"x": true}),
        &ToolContext::new("b"),
    )
    .await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "t {\"n\":2} agent-1 Some(\"r1\") Some(\"k9\") false",
            "danger {\"x\":true} b None None true"
        ]
    );
}

fn deciding(decision: Result<ToolCallDecision, &'static str>) -> impl ToolCallGate {
    gate_fn(move |_| {
        let decision = decision.clone().map_err(GateError::from);
        async move { decision }
    })
}

#[tokio::test]
async fn gate_denials_and_errors() {
    let f = fixture();
    let input = || json!({"n": 1});
    let with = |d| f.executor().with_gate(deciding(d));
    assert_eq!(
        run(
            &with(Ok(ToolCallDecision::deny_because("too risky"))),
            "t",
            input(),
            &ctx()
        )
        .await,
        err("Tool \"t\" denied by onToolCall: too risky")
    );
    assert_eq!(
        run(
            &with(Ok(ToolCallDecision::Deny { reason: None })),
            "t",
            input(),
            &ctx()
        )
        .await,
        err("Tool \"t\" denied by onToolCall.")
    );
    assert_eq!(
        run(
            &with(Ok(ToolCallDecision::deny_because(""))),
            "t",
            input(),
            &ctx()
        )
        .await,
        err("Tool \"t\" denied by onToolCall.")
    );
    assert_eq!(
        run(&with(Err("policy store unreachable")), "t", input(), &ctx()).await,
        err("Tool \"t\" onToolCall hook threw an error: policy store unreachable")
    );
    // A gate that panics is a gate that threw: the agent's task goes on.
    let panicking = f.executor().with_gate(gate_fn(|_| async {
        if true {
            panic!("policy bug");
        }
        Ok(ToolCallDecision::Allow)
    }));
    assert_eq!(
        run(&panicking, "t", input(), &ctx()).await,
        err("Tool \"t\" onToolCall hook threw an error: the gate panicked: policy bug")
    );
    assert_eq!(f.calls(), 0);
    assert!(
        !run(&with(Ok(ToolCallDecision::Allow)), "t", input(), &ctx())
            .await
            .1
    );
    assert_eq!(f.calls(), 1);
}

#[tokio::test]
async fn aborted_while_the_gate_decided() {
    let f = fixture();
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    let executor = f.executor().with_gate(gate_fn(move |_| {
        token.cancel();
        async { Ok(ToolCallDecision::Allow) }
    }));
    let got = run(&executor, "t", json!({"n": 1}), &ctx().with_cancel(cancel)).await;
    assert_eq!(got, err("Tool \"t\" was aborted before execution began."));
    assert_eq!(f.calls(), 0);
}

#[tokio::test]
async fn consequential_confirmation() {
    let f = fixture();
    let confirm = ctx().with_consequential_confirmation(true);
    let input = || json!({"n": 1});
    // Required, no gate: denied with open-multi-agent's reason, through the gate's wording.
    assert_eq!(
        run(&f.executor(), "danger", input(), &confirm).await,
        err(
            "Tool \"danger\" denied by onToolCall: Consequential tool confirmation required \
             before execution."
        )
    );
    assert_eq!(f.calls(), 0);
    // Required, the gate denies: its own reason.
    let denying = f
        .executor()
        .with_gate(deciding(Ok(ToolCallDecision::deny_because("no"))));
    assert_eq!(
        run(&denying, "danger", input(), &confirm).await,
        err("Tool \"danger\" denied by onToolCall: no")
    );
    // Required, the gate approves: it runs.
    let approving = f
        .executor()
        .with_gate(deciding(Ok(ToolCallDecision::Allow)));
    assert!(!run(&approving, "danger", input(), &confirm).await.1);
    assert_eq!(f.calls(), 1);
    // Not required: a consequential tool runs without a gate.
    assert!(!run(&f.executor(), "danger", input(), &ctx()).await.1);
    // Required, but the tool is not consequential: it runs without a gate.
    assert!(!run(&f.executor(), "t", input(), &confirm).await.1);
    assert_eq!(f.calls(), 3);
}

#[tokio::test]
async fn output_truncation_limits() {
    let registry = Arc::new(ToolRegistry::new());
    let long = |name: &str| {
        ToolDefinition::new(name, "long", json!({}), |_: Value, _: ToolContext| async {
            ToolResult::text("abcdefghijklmnopqrstuvwxyz".repeat(4))
        })
    };
    registry.register(long("plain")).unwrap();
    registry
        .register(long("own").with_max_output_chars(Some(37)))
        .unwrap();
    registry
        .register(long("never").with_max_output_chars(Some(0)))
        .unwrap();
    let executor = ToolExecutor::new(
        Arc::clone(&registry),
        ToolGrants::new().allow(["plain", "own", "never"]),
    );
    let full = "abcdefghijklmnopqrstuvwxyz".repeat(4);
    assert_eq!(run(&executor, "plain", json!({}), &ctx()).await.0, full);
    let executor = executor.with_max_tool_output_chars(Some(60));
    assert_eq!(
        run(&executor, "plain", json!({}), &ctx()).await.0,
        "abcdefghijklmnop\n\n[...truncated 80 characters...]\n\nstuvwxyz"
    );
    assert_eq!(
        run(&executor, "own", json!({}), &ctx()).await.0,
        "\n\n[...truncated 103 characters...]\n\nz"
    );
    assert_eq!(run(&executor, "never", json!({}), &ctx()).await.0, full);
}

#[tokio::test]
async fn the_handler_gets_the_context() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(ToolDefinition::new(
            "who",
            "who",
            json!({}),
            |_: Value, ctx: ToolContext| async move {
                ToolResult::text(format!("{} {}", ctx.agent_name, ctx.cancel.is_cancelled()))
            },
        ))
        .unwrap();
    let executor = ToolExecutor::new(registry, ToolGrants::new().allow(["who"]));
    assert_eq!(
        run(&executor, "who", json!(null), &ctx()).await,
        ("agent-1 false".to_owned(), false)
    );
}

//! The agent example runs as a user would run it, and prints the exact transcript: the gate
//! refuses the first consequential call and approves the second.

#[test]
fn the_scripted_agent_is_refused_then_approved_by_the_gate() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oma-mcp-agent"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "model calls demo_echo {\"message\":\"hi\"}\n  \
         result: Echo: hi\n\
         model calls demo_add {\"a\":1,\"b\":2}\n\
         gate: demo_add {\"a\":1,\"b\":2} → refused\n  \
         error: Tool \"demo_add\" denied by onToolCall: the user said no\n\
         model calls demo_add {\"a\":40,\"b\":2}\n\
         gate: demo_add {\"a\":40,\"b\":2} → approved\n  \
         result: 42\n\
         model: Done: Echo: hi | Tool \"demo_add\" denied by onToolCall: the user said no | 42\n"
    );
}

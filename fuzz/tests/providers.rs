//! The provider forms over every tool of the corpus of real servers (every `tools/list` entry
//! in `corpus/servers/`, `corpus/history/` and `corpus/cases/` of the shared reference
//! folder: 989 tools): for each provider, each tool is either converted to a form that
//! breaks none of the provider's rules, with the argument converter's round trip holding for
//! an example argument, or refused for an expected reason (see `oma_mcp_fuzz::providers`).

use std::collections::BTreeMap;

use oma_mcp_fuzz::providers::{Outcome, check};
use oma_mcp_runtime::descriptor::ToolDescriptor;
use oma_mcp_runtime::provider::Provider;
use serde_json::Value;

#[test]
fn every_corpus_tool_follows_each_providers_rules_or_is_refused_for_a_reason() {
    let Some(shared) = oma_mcp_test_support::shared_dir() else {
        return;
    };
    let mut tools = Vec::new();
    for folder in ["servers", "history", "cases"] {
        let mut files: Vec<_> = std::fs::read_dir(shared.join("corpus").join(folder))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            collect(&serde_json::from_str(&text).unwrap(), &mut tools);
        }
    }
    let mut failures = Vec::new();
    let mut figures: BTreeMap<(Provider, String), usize> = BTreeMap::new();
    for provider in Provider::ALL {
        for tool in &tools {
            match check(tool, provider) {
                Ok(outcome) => {
                    let key = match outcome {
                        Outcome::RoundTrip => "round trip".to_owned(),
                        Outcome::NoExample => "no example".to_owned(),
                        Outcome::InvalidOriginal => "invalid original".to_owned(),
                        Outcome::Unexpressible(why) => format!("refused: {why}"),
                    };
                    *figures.entry((provider, key)).or_default() += 1;
                }
                Err(e) => failures.push(format!("{provider} `{}`: {e}", tool.name)),
            }
        }
    }
    for ((provider, key), n) in &figures {
        println!("{provider}: {n} {key}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(tools.len(), 989);
}

/// Every `tools/list` entry (an object with a string `name` and an `inputSchema`) in `value`.
fn collect(value: &Value, tools: &mut Vec<ToolDescriptor>) {
    match value {
        Value::Object(map) => {
            if map.get("name").is_some_and(Value::is_string) && map.contains_key("inputSchema") {
                tools.extend(ToolDescriptor::from_mcp(None, value));
            }
            map.values().for_each(|v| collect(v, tools));
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, tools)),
        _ => {}
    }
}

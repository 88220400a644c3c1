//! Tool names and result mapping against the reference implementation, open-multi-agent's
//! `connectMCPTools()` ("Tool names", "Result mapping" and "Errors" of its MCP docs):
//!
//! - `tests/fixtures/naming-cases.json`: the normalized names, or the exact collision message, the
//!   reference implementation gives (committed: these run everywhere);
//! - `tests/fixtures/mapping-cases.json`: every case's full expected `{data, isError, modelOutput}`,
//!   produced by the reference implementation (committed; see `tests/fixtures/README.md`);
//! - `corpus/results/*.json` of the shared reference folder: real `tools/call` responses from
//!   public servers;
//! - `corpus/cases/{14a,14b,15a,17,19,21,22,33}-*.json` of the shared reference folder:
//!   inputs that broke other clients.
//!
//! The shared reference folder is found by `oma_mcp_test_support::shared_dir` (variable
//! `OMA_MCP_SHARED`): when it is absent the corpus tests print one line and pass, unless `CI`
//! is set, where they fail.

use std::path::{Path, PathBuf};

use crate::naming::normalize_all;
use crate::result::{FileSource, ImageSource};
use crate::{ModelPart, ToolResult, map_call_result};
use oma_mcp_test_support::shared_dir;
use serde_json::{Value, json};

/// A committed fixture of this crate's tests.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("invalid JSON in {}: {e}", path.display()))
}

/// Maps one case the way the reference implementation's tool does: a `"throws"` case is a
/// failed call.
fn run_case(case: &Value) -> ToolResult {
    let tool = case["tool"].as_str().unwrap_or_default();
    if let Some(message) = case.get("throws").and_then(|t| t["message"].as_str()) {
        return ToolResult::failed(tool, message);
    }
    let mut result = case["result"].clone();
    if let Some(generator) = case.get("result_generator") {
        let pointer = generator["json_pointer"].as_str().expect("json_pointer");
        let ch = generator["char"].as_str().expect("char");
        let count = generator["count"].as_u64().expect("count");
        *result
            .pointer_mut(pointer)
            .expect("generator pointer exists") =
            Value::String(ch.repeat(usize::try_from(count).expect("count fits")));
    }
    map_call_result(&result)
}

/// Compares the special `image-2mb` expectation: data, the payload length, the part without
/// its payload, and payload equality with the input.
fn check_truncated(case: &Value, got: &ToolResult) -> Result<(), String> {
    let expected = &case["expected"];
    let generator = &case["result_generator"];
    let mut got_json = got.to_json();
    if got_json["data"] != expected["data"] || got_json["isError"] != expected["isError"] {
        return Err(format!("data/isError differ: {}", got_json["data"]));
    }
    let payload = got_json
        .pointer_mut("/modelOutput/0/source")
        .and_then(Value::as_object_mut)
        .and_then(|source| source.shift_remove("data"))
        .ok_or("no modelOutput[0].source.data")?;
    let payload = payload.as_str().ok_or("payload is not a string")?;
    let want_len = expected["modelOutput_0_source_data_length"].as_u64();
    if Some(payload.len() as u64) != want_len {
        return Err(format!("payload length {} != {want_len:?}", payload.len()));
    }
    if expected["modelOutput_0_source_data_equals_input"] == json!(true) {
        let ch = generator["char"].as_str().unwrap_or_default();
        if !payload.chars().all(|c| c.to_string() == ch) {
            return Err("payload differs from the input".into());
        }
    }
    if got_json["modelOutput"] != expected["modelOutput_without_data"] {
        return Err(format!(
            "modelOutput without data: {}",
            got_json["modelOutput"]
        ));
    }
    Ok(())
}

#[test]
fn reference_naming_cases() {
    let cases = read_json(&fixture("naming-cases.json"));
    let cases = cases.as_array().expect("naming-cases.json is an array");
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap_or("<no id>");
        let prefix = case["namePrefix"].as_str();
        let tools = case["tools"].as_array().expect("tools is an array");
        let raw = tools
            .iter()
            .map(|t| t.as_str().expect("raw names are strings"));
        let got = match normalize_all(prefix, raw) {
            Ok(names) => json!({ "names": names }),
            Err(e) => json!({ "error": e.to_string() }),
        };
        if got != case["expected"] {
            failures.push(format!("  {id}: got {got}, expected {}", case["expected"]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} naming cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn reference_mapping_cases() {
    let cases = read_json(&fixture("mapping-cases.json"));
    let cases = cases.as_array().expect("mapping-cases.json is an array");
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap_or("<no id>");
        let got = run_case(case);
        let outcome = if case.get("result_generator").is_some() {
            check_truncated(case, &got)
        } else if got.to_json() == case["expected"]
            // Value equality ignores key order; the text form does not.
            && serde_json::to_string(&got.to_json()).ok()
                == serde_json::to_string(&case["expected"]).ok()
        {
            Ok(())
        } else {
            Err(format!(
                "\n    got:      {}\n    expected: {}",
                got.to_json(),
                case["expected"]
            ))
        };
        if let Err(why) = outcome {
            failures.push(format!("  {id}: {why}"));
        }
    }
    println!(
        "{}/{} mapping cases pass",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} mapping cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn corpus_result(shared: &Path, name: &str) -> Value {
    let file = read_json(&shared.join("corpus/results").join(name));
    file["response"]["result"].clone()
}

#[test]
fn corpus_results_map_without_panicking() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("corpus/results");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("corpus/results") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let file = read_json(&path);
            let result = file["response"]
                .get("result")
                .unwrap_or_else(|| panic!("{}: no response.result", path.display()));
            let mapped = map_call_result(result);
            assert!(!mapped.data.is_empty(), "{}", path.display());
            let is_error = result.get("isError") == Some(&json!(true));
            assert_eq!(mapped.is_error, is_error, "{}", path.display());
            count += 1;
        }
    }
    assert!(count >= 20, "only {count} corpus results");
}

#[test]
fn corpus_results_exact() {
    let Some(shared) = shared_dir() else { return };
    let echo = map_call_result(&corpus_result(&shared, "server-everything__echo__1.json"));
    assert_eq!(
        echo.to_json(),
        json!({"data": "Echo: hello", "isError": false, "modelOutput": null})
    );

    let sum = map_call_result(&corpus_result(
        &shared,
        "server-everything__get-sum__2.json",
    ));
    assert_eq!(sum.data, "The sum of 1.5 and 2 is 3.5.");
    assert!(!sum.is_error && sum.model_output.is_none());

    let bad = map_call_result(&corpus_result(
        &shared,
        "server-everything__get-sum__invalid-args.json",
    ));
    assert!(bad.is_error && bad.model_output.is_none());
    assert!(
        bad.data
            .starts_with("MCP error -32602: Input validation error")
    );

    let image_result = corpus_result(&shared, "server-everything__get-tiny-image__4.json");
    let payload = image_result["content"][1]["data"]
        .as_str()
        .expect("image data")
        .to_owned();
    let image = map_call_result(&image_result);
    assert_eq!(
        image.data,
        format!(
            "Here's the image you requested:\n[image image/png; base64 length={}]\n\
             The image above is the MCP logo.",
            payload.len()
        )
    );
    assert_eq!(
        image.model_output.as_deref().and_then(|p| p.get(1)),
        Some(&ModelPart::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: payload
            }
        })
    );

    // `demo://` links are not HTTP(S): text only.
    let links = map_call_result(&corpus_result(
        &shared,
        "server-everything__get-resource-links__6.json",
    ));
    assert_eq!(
        links.data,
        "Here are 3 resource links to resources available in this server:\n\
         [resource_link name=\"Blob Resource 1\" uri=\"demo://resource/dynamic/blob/1\"]\n\
         Resource 1: plaintext resource\n\
         [resource_link name=\"Text Resource 2\" uri=\"demo://resource/dynamic/text/2\"]\n\
         Resource 2: plaintext resource\n\
         [resource_link name=\"Blob Resource 3\" uri=\"demo://resource/dynamic/blob/3\"]\n\
         Resource 3: plaintext resource"
    );
    assert!(links.model_output.is_none());

    let blob = map_call_result(&corpus_result(
        &shared,
        "server-everything__get-resource-reference__7.json",
    ));
    assert_eq!(
        blob.data,
        "Returning resource reference for Resource 2:\n\
         [resource demo://resource/dynamic/blob/2; mimeType=text/plain; blob base64 length=76]\n\
         You can access this resource using the URI: demo://resource/dynamic/blob/2"
    );
    let parts = blob.model_output.expect("blob resource gives a file part");
    assert_eq!(parts.len(), 4);
    assert_eq!(
        parts.get(1),
        Some(&ModelPart::Text {
            text: "[resource demo://resource/dynamic/blob/2]".into()
        })
    );
    assert!(matches!(
        parts.get(2),
        Some(ModelPart::File { filename, source: FileSource::Base64 { media_type, .. } })
            if filename == "2" && media_type == "text/plain"
    ));

    // structuredContent is ignored when content has lines; `6.0` stays as the server wrote it
    // inside the text block.
    let calc = map_call_result(&corpus_result(
        &shared,
        "rmcp-example-structured_output__calculate__1.json",
    ));
    assert_eq!(
        calc.data,
        "{\"input_count\":3,\"operation\":\"sum\",\"result\":6.0}"
    );
}

fn corpus_case(shared: &Path, prefix: &str) -> Value {
    let dir = shared.join("corpus/cases");
    let path = std::fs::read_dir(&dir)
        .expect("corpus/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".json"))
        })
        .unwrap_or_else(|| panic!("no corpus case {prefix}*"));
    read_json(&path)
}

#[test]
fn corpus_cases_exact() {
    let Some(shared) = shared_dir() else { return };

    // 14a: the contract's text line and URL file part (with the description text part).
    let r = map_call_result(&corpus_case(&shared, "14a-"));
    let expected = json!({
        "data": "Job 6f1c is complete.\n[resource_link name=\"output.png\" \
                 uri=\"https://cdn.example.com/jobs/6f1c/output.png\"]\nGenerated image",
        "isError": false,
        "modelOutput": [
            {"type": "text", "text": "Job 6f1c is complete."},
            {"type": "text", "text": "Generated image"},
            {"type": "file", "filename": "output.png", "source": {
                "type": "url", "media_type": "image/png",
                "url": "https://cdn.example.com/jobs/6f1c/output.png"}},
        ],
    });
    assert_eq!(r.to_json(), expected);

    // 14b: `[<type>]` plus pretty JSON; the rest of the result is kept.
    let r = map_call_result(&corpus_case(&shared, "14b-"));
    assert_eq!(
        r.to_json(),
        json!({
            "data": "Loaded 1 tool.\n[tool_reference]\n{\n  \"type\": \"tool_reference\",\n  \
                     \"tool_name\": \"search_issues\"\n}",
            "isError": false,
            "modelOutput": null,
        })
    );

    // 15a: an unknown audience value is ignored.
    let r = map_call_result(&corpus_case(&shared, "15a-"));
    assert_eq!(
        r.to_json(),
        json!({"data": "3 rows updated", "isError": false, "modelOutput": null})
    );

    // 17: only structuredContent: pretty JSON of it.
    let r = map_call_result(&corpus_case(&shared, "17-"));
    assert_eq!(
        r.to_json(),
        json!({
            "data": "{\n  \"temperature\": 21.5,\n  \"conditions\": \"cloudy\"\n}",
            "isError": false,
            "modelOutput": null,
        })
    );

    // 21: an error result is text-only and never validated.
    let case = corpus_case(&shared, "21-");
    let r = map_call_result(&case["result"]);
    assert_eq!(
        r.to_json(),
        json!({
            "data": "{\n  \"errorMessage\": \"Directory not found: /work/project\"\n}",
            "isError": true,
            "modelOutput": null,
        })
    );

    // 22: an outputSchema is declared but no structuredContent comes back: an untyped call
    // maps the content as open-multi-agent does (a typed output call reports it; see codegen).
    let case = corpus_case(&shared, "22-");
    let r = map_call_result(&case["result"]);
    assert_eq!(
        r.to_json(),
        json!({
            "data": "# Location\ncolumns: id, name, lat, lng\n",
            "isError": false,
            "modelOutput": null,
        })
    );

    // 33: a bare result without `content` (after stdout noise, see the integration test
    // `replayed_cases`): the whole result object.
    let case = corpus_case(&shared, "33-");
    let r = map_call_result(&case["bare_call_result"]["result"]);
    assert_eq!(
        r.to_json(),
        json!({
            "data": "{\"success\":true,\"configs\":[{\"id\":\"default\",\"host\":\"smtp.example.com\",\"port\":587}]}",
            "isError": false,
            "modelOutput": null,
        })
    );

    // 19: a 1.5 MB screenshot: one image part holding the payload unchanged.
    let case = corpus_case(&shared, "19-");
    let payload = case["content"][1]["data"].as_str().expect("image data");
    let r = map_call_result(&case);
    assert_eq!(
        r.data,
        format!(
            "Took a screenshot of the current page's viewport.\n[image image/png; base64 length={}]",
            payload.len()
        )
    );
    let parts = r.model_output.expect("image part");
    assert_eq!(parts.len(), 2);
    assert!(matches!(
        parts.get(1),
        Some(ModelPart::Image { source: ImageSource::Base64 { media_type, data } })
            if media_type == "image/png" && data == payload
    ));
}

/// 16 MiB of base64: one copy into the model part, no pretty JSON of the payload, and fast.
#[test]
fn sixteen_mib_image_maps_to_one_part() {
    // Its speed and memory are measured by `client-bench` (the `map16` row), not here.
    let payload = "QUJD".repeat(4 * 1024 * 1024);
    let result = json!({"content": [{"type": "image", "data": payload, "mimeType": "image/png"}]});
    let r = map_call_result(&result);
    assert_eq!(r.data, "[image image/png; base64 length=16777216]");
    let Some(
        [
            ModelPart::Image {
                source: ImageSource::Base64 { data, .. },
            },
        ],
    ) = r.model_output.as_deref()
    else {
        panic!("one image part expected");
    };
    assert_eq!(*data, payload);

    // An error result with the same payload copies nothing.
    let mut error = result;
    error["isError"] = json!(true);
    let r = map_call_result(&error);
    assert!(r.is_error && r.model_output.is_none());
}

use serde_json::json;

use super::*;

/// Each message keeps its role and its block as sent; the block is mapped as a tool result's
/// (text as is, an image as the reference's text form plus a model-visible image).
#[test]
fn prompt_messages_are_mapped_as_tool_results() {
    let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
    let result = json!({
        "description": "A code review",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Review:\nfn main() {}"}},
            {"role": "assistant", "content": image},
            {"role": "user", "content": {"type": "video", "text": "not a known block"}}
        ],
        "_meta": {"x": 1}
    });
    let prompt = map_prompt_result(&result).unwrap();
    assert_eq!(prompt.description.as_deref(), Some("A code review"));
    let roles: Vec<Role> = prompt.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
    assert_eq!(prompt.messages[0].text, "Review:\nfn main() {}");
    assert_eq!(prompt.messages[0].model_output, None);
    let mapped_image = map_call_result(&json!({"content": [image.clone()]}));
    assert_eq!(prompt.messages[1].text, mapped_image.data);
    assert_eq!(prompt.messages[1].model_output, mapped_image.model_output);
    assert!(prompt.messages[1].model_output.is_some());
    assert_eq!(prompt.messages[1].content, image);
    // A block of a type the mapping does not know: its type, then the block as JSON.
    assert_eq!(
        prompt.messages[2].text,
        "[video]\n{\n  \"type\": \"video\",\n  \"text\": \"not a known block\"\n}"
    );
    assert_eq!(Role::Assistant.as_str(), "assistant");
}

#[test]
fn a_malformed_prompt_result_names_the_pointer() {
    let errors: Vec<String> = [
        json!([]),
        json!({}),
        json!({"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]}),
        json!({"messages": [{"role": "user"}]}),
    ]
    .iter()
    .map(|r| map_prompt_result(r).unwrap_err().to_string())
    .collect();
    assert_eq!(
        errors,
        [
            "at : not an object: []",
            "at /messages: not an array: null",
            "at /messages/0/role: not \"user\" or \"assistant\": \"system\"",
            "at /messages/0/content: missing",
        ]
    );
}

#[test]
fn resource_contents_are_text_or_decoded_bytes() {
    let contents = map_read_result(&json!({"contents": [
        {"uri": "memo://a", "mimeType": "text/markdown", "text": "# A"},
        {"uri": "memo://b", "mimeType": "application/octet-stream", "blob": "3q2+7w=="},
        {"uri": "memo://c", "text": ""}
    ]}))
    .unwrap();
    assert_eq!(
        contents,
        [
            ResourceContent {
                uri: "memo://a".into(),
                mime_type: Some("text/markdown".into()),
                body: ResourceBody::Text("# A".into()),
            },
            ResourceContent {
                uri: "memo://b".into(),
                mime_type: Some("application/octet-stream".into()),
                body: ResourceBody::Blob(vec![0xde, 0xad, 0xbe, 0xef]),
            },
            ResourceContent {
                uri: "memo://c".into(),
                mime_type: None,
                body: ResourceBody::Text(String::new()),
            },
        ]
    );
    assert_eq!(contents[0].text(), Some("# A"));
    assert_eq!(contents[1].text(), None);
}

#[test]
fn a_malformed_read_result_names_the_pointer() {
    let errors: Vec<String> = [
        json!("x"),
        json!({"contents": {}}),
        json!({"contents": [1]}),
        json!({"contents": [{"text": "x"}]}),
        json!({"contents": [{"uri": "a"}]}),
        json!({"contents": [{"uri": "a", "blob": "not base64!"}]}),
    ]
    .iter()
    .map(|r| map_read_result(r).unwrap_err().to_string())
    .collect();
    assert_eq!(
        errors,
        [
            "at : not an object: \"x\"",
            "at /contents: not an array: {}",
            "at /contents/0: not an object: 1",
            "at /contents/0/uri: missing, or not a string",
            "at /contents/0: neither a string `text` nor a string `blob`",
            "at /contents/0/blob: not base64: Invalid symbol 32, offset 3.",
        ]
    );
}

#[test]
fn completions_with_and_without_totals() {
    let full = map_complete_result(&json!({"completion": {
        "values": ["python", "pytorch"], "total": 10, "hasMore": true
    }}))
    .unwrap();
    assert_eq!(
        full,
        Completions {
            values: vec!["python".into(), "pytorch".into()],
            total: Some(10),
            has_more: true,
        }
    );
    let bare = map_complete_result(&json!({"completion": {"values": []}})).unwrap();
    assert_eq!(bare, Completions::default());
    let errors: Vec<String> = [
        json!({}),
        json!({"completion": {"values": "x"}}),
        json!({"completion": {"values": ["a", 2]}}),
    ]
    .iter()
    .map(|r| map_complete_result(r).unwrap_err().to_string())
    .collect();
    assert_eq!(
        errors,
        [
            "at /completion: not an object: {}",
            "at /completion/values: not an array: \"x\"",
            "at /completion/values/1: not a string: 2",
        ]
    );
}

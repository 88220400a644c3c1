use oma_mcp_runtime::ConnectConfig;

use super::*;

fn flags(header: &[&str], bearer: Option<&str>, header_env: &[&str]) -> HttpFlags {
    let all = |items: &[&str]| items.iter().map(|t| Unchecked((*t).to_owned())).collect();
    HttpFlags {
        header: all(header),
        bearer_env: bearer.map(|b| Unchecked(b.to_owned())),
        header_env: all(header_env),
        oauth: crate::server::oauth::OAuthFlags::default(),
    }
}

/// The message of the flags' error, with only `SET` and `TOKEN` set.
fn err(header: &[&str], bearer: Option<&str>, header_env: &[&str]) -> String {
    flags(header, bearer, header_env)
        .validate(|var| var == "SET" || var == "TOKEN")
        .map(|_| ())
        .expect_err("the flags are refused")
        .to_string()
}

#[test]
fn headers_replace_the_pins_of_the_same_name_in_any_case() {
    let pinned = ConnectConfig::http("https://h.example/mcp")
        .with_header("x-mcp-toolsets", "all")
        .with_header("X-Kept", "1")
        .with_bearer_env("PINNED_TOKEN")
        .with_header_env("X-Api-Key", "PINNED_KEY");
    let headers = flags(
        &["X-MCP-Toolsets:  repos,issues ", "X-Empty:"],
        None,
        &["x-api-key=SET", "Authorization=TOKEN"],
    )
    .validate(|_| true)
    .expect("valid");
    assert_eq!(
        headers.apply(pinned),
        ConnectConfig::http("https://h.example/mcp")
            .with_header("X-Kept", "1")
            .with_header("X-MCP-Toolsets", "repos,issues")
            .with_header("X-Empty", "")
            .with_header_env("x-api-key", "SET")
            .with_header_env("Authorization", "TOKEN")
    );
    let bearer = flags(&[], Some("TOKEN"), &[])
        .validate(|_| true)
        .expect("valid");
    assert_eq!(
        bearer.apply(
            ConnectConfig::http("https://h.example/mcp").with_header_env("authorization", "OLD")
        ),
        ConnectConfig::http("https://h.example/mcp").with_bearer_env("TOKEN")
    );
    assert_eq!(
        flags(&["A: 1"], Some("T"), &["B=K"]).given(),
        ["--header", "--bearer-env", "--header-env"]
    );
    assert_eq!(HttpFlags::default().given(), Vec::<&str>::new());
}

#[test]
fn a_bad_header_flag_names_the_flag_and_never_a_value() {
    assert_eq!(
        err(&["Bearer s3cret"], None, &[]),
        "--header takes 'NAME: VALUE' (a header name, `:`, its value), and one has no `:`"
    );
    assert_eq!(
        err(&["X Toolsets: repos"], None, &[]),
        "--header has the header name \"X Toolsets\"; a header name is ASCII letters, digits \
         and the characters !#$%&'*+-.^_`|~ (RFC 9110, \"Tokens\")"
    );
    assert_eq!(
        err(&["Authorization: Bearer s3cret"], None, &[]),
        "--header \"Authorization\" looks like a credential, and a literal header is recorded \
         (in a snapshot's source) and shows in the process list; take its value from an \
         environment variable: --bearer-env VAR sends `Authorization: Bearer $VAR`, \
         --header-env Authorization=VAR sends `$VAR` as it is"
    );
    assert_eq!(
        err(&["X-Api-Key: s3cret"], None, &[]),
        "--header \"X-Api-Key\" looks like a credential, and a literal header is recorded (in a \
         snapshot's source) and shows in the process list; take its value from an environment \
         variable: --header-env X-Api-Key=VAR"
    );
    assert_eq!(
        err(&["X-Toolsets: a\r\nX-Injected: s3cret"], None, &[]),
        "--header \"X-Toolsets\" has a control character (a line break, NUL, …) in its value, \
         which an HTTP header cannot carry"
    );
    assert_eq!(
        err(&[], None, &["s3cret"]),
        "--header-env takes NAME=VAR (a header name, `=`, the name of the variable that holds \
         its value), and one has no `=`"
    );
    assert_eq!(
        err(&[], None, &["=SET"]),
        "--header-env has the header name \"\"; a header name is ASCII letters, digits and the \
         characters !#$%&'*+-.^_`|~ (RFC 9110, \"Tokens\")"
    );
    assert_eq!(
        err(&["X-A: 1", "x-a: 2"], None, &[]),
        "the HTTP header \"x-a\" is given twice, by --header and by --header (header names are \
         case-insensitive); keep one"
    );
    assert_eq!(
        err(&[], Some("TOKEN"), &["authorization=SET"]),
        "the HTTP header \"authorization\" is given twice, by --bearer-env and by --header-env \
         (header names are case-insensitive); keep one"
    );
}

#[test]
fn a_variable_must_be_a_name_and_set() {
    assert_eq!(
        err(&[], Some("GITHUB_TOKEN"), &[]),
        "--bearer-env GITHUB_TOKEN: the variable GITHUB_TOKEN is not set (or not UTF-8) in this \
         environment; set it (in CI: from the secret store) before running oma-mcp"
    );
    assert_eq!(
        err(&[], None, &["X-Api-Key=API_KEY"]),
        "--header-env X-Api-Key=API_KEY: the variable API_KEY is not set (or not UTF-8) in \
         this environment; set it (in CI: from the secret store) before running oma-mcp"
    );
    assert_eq!(
        err(&[], Some("TOKEN=s3cret"), &[]),
        "--bearer-env takes the name of a variable, not its value (--bearer-env TOKEN=… holds \
         `=`); put the value in a variable (in CI: from the secret store) and give its name"
    );
    assert_eq!(
        err(&[], None, &["X-Api-Key=KEY=s3cret"]),
        "--header-env takes the name of a variable, not its value (--header-env X-Api-Key=KEY=… \
         holds `=`); put the value in a variable (in CI: from the secret store) and give its \
         name"
    );
    assert_eq!(
        err(&[], Some(""), &[]),
        "--bearer-env has the variable name \"\"; a name must be non-empty, without `=` or NUL"
    );
    assert_eq!(
        err(&[], None, &["X-Api-Key=A\0B"]),
        "--header-env has the variable name \"A\\\\0B\"; a name must be non-empty, without `=` \
         or NUL"
    );
}

#[test]
fn a_url_is_http_and_shown_redacted() {
    let url = |text: &str| checked_url(&Unchecked(text.to_owned())).map_err(|e| e.to_string());
    assert_eq!(
        url("https://api.githubcopilot.com/mcp/"),
        Ok("https://api.githubcopilot.com/mcp/".to_owned())
    );
    assert_eq!(
        url("https://h.example/mcp?key=s3cret"),
        Ok("https://h.example/mcp?key=s3cret".to_owned())
    );
    assert_eq!(
        url("https://me:s3cret@h.example/mcp"),
        Err(
            "--url \"https://***@h.example/mcp\" holds a user name or password; send the \
             credential from an environment variable with --bearer-env or --header-env instead"
                .to_owned()
        )
    );
    assert_eq!(
        url("ws://h.example/mcp?key=s3cret"),
        Err(
            "--url \"ws://h.example/mcp?key=***\" is not an http or https URL; give the \
             server's streamable HTTP endpoint, such as \"https://api.githubcopilot.com/mcp/\""
                .to_owned()
        )
    );
    assert_eq!(
        url("h.example/mcp?key=s3cret"),
        Err(
            "--url \"<invalid URL>\" is not an absolute URL (relative URL without a base); \
             give the server's streamable HTTP endpoint, such as \
             \"https://api.githubcopilot.com/mcp/\""
                .to_owned()
        )
    );
    assert_eq!(
        format!("{:?}", Unchecked("s3cret".to_owned())),
        "Unchecked(…)"
    );
}

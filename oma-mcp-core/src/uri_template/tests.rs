use super::*;

/// The variables of RFC 6570's examples (section 1.2 and section 3.2), strings and lists
/// (associative arrays are not offered by [`TemplateValue`]).
fn rfc_values() -> Vec<(&'static str, TemplateValue)> {
    let list =
        |items: &[&str]| TemplateValue::List(items.iter().map(|s| (*s).to_owned()).collect());
    vec![
        ("var", "value".into()),
        ("hello", "Hello World!".into()),
        ("empty", "".into()),
        ("path", "/foo/bar".into()),
        ("x", "1024".into()),
        ("y", "768".into()),
        ("list", list(&["red", "green", "blue"])),
        ("count", list(&["one", "two", "three"])),
        ("dom", list(&["example", "com"])),
        ("who", "fred".into()),
        ("half", "50%".into()),
        ("base", "http://example.com/home/".into()),
        ("v", "6".into()),
        ("empty_list", TemplateValue::List(Vec::new())),
    ]
}

fn expand_rfc(template: &str) -> String {
    UriTemplate::parse(template)
        .and_then(|t| t.expand(&rfc_values()))
        .unwrap_or_else(|e| panic!("{template}: {e}"))
}

/// RFC 6570, section 1.2: the examples of every level, in the RFC's order (those of
/// associative arrays left out).
#[test]
fn the_rfc_examples_of_every_level() {
    let cases = [
        // Level 1.
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        // Level 2.
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("X{#var}", "X#value"),
        ("X{#hello}", "X#Hello%20World!"),
        // Level 3.
        ("map?{x,y}", "map?1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"),
        ("X{.x,y}", "X.1024.768"),
        ("{/var}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        // Level 4.
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"),
        ("{#list*}", "#red,green,blue"),
        ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"),
        ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"),
        ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{;hello:5}", ";hello=Hello"),
        ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{?var:3}", "?var=val"),
        ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{&var:3}", "&var=val"),
        ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"),
    ];
    for (template, expected) in cases {
        assert_eq!(expand_rfc(template), expected, "{template}");
    }
}

/// RFC 6570, section 3.2: undefined and empty values, lists, repeated variables, and the
/// percent-encoding of reserved, unreserved and `%` characters.
#[test]
fn the_rfc_rules_of_section_3_2() {
    let cases = [
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,undef,y}", "1024,768"),
        ("{?undef}", ""),
        ("{?x,undef}", "?x=1024"),
        ("{/empty_list*}", ""),
        ("{count}", "one,two,three"),
        ("{count*}", "one,two,three"),
        ("{/count}", "/one,two,three"),
        ("{/count*}", "/one/two/three"),
        ("{;count}", ";count=one,two,three"),
        ("{;count*}", ";count=one;count=two;count=three"),
        ("{?count}", "?count=one,two,three"),
        ("{?count*}", "?count=one&count=two&count=three"),
        ("{&count*}", "&count=one&count=two&count=three"),
        ("www{.dom*}", "www.example.com"),
        ("{/who,who}", "/fred/fred"),
        ("{half}", "50%25"),
        ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("{+base}index", "http://example.com/home/index"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{?v,empty,who}", "?v=6&empty=&who=fred"),
    ];
    for (template, expected) in cases {
        assert_eq!(expand_rfc(template), expected, "{template}");
    }
}

/// Non-ASCII text is encoded as UTF-8, then each byte as `%XX` (section 1.6); the reserved
/// expansion keeps a `%XX` triplet already in the value and encodes a lone `%`.
#[test]
fn non_ascii_text_is_utf8_percent_encoded() {
    let template = UriTemplate::parse("memo://notes/{id}{?q}").unwrap();
    let uri = template
        .expand(&[("id", "café ☕".into()), ("q", "a&b=c".into())])
        .unwrap();
    assert_eq!(uri, "memo://notes/caf%C3%A9%20%E2%98%95?q=a%26b%3Dc");
    let file = UriTemplate::parse("file:///{+path}").unwrap();
    assert_eq!(
        file.expand(&[("path", "docs/a%20b/100%.md".into())])
            .unwrap(),
        "file:///docs/a%20b/100%25.md"
    );
}

/// A literal outside the ASCII range is allowed (RFC 6570 section 2.1: `ucschar`) and
/// expands percent-encoded as UTF-8 (section 3.1); the template text stays as written.
#[test]
fn non_ascii_literals_expand_percent_encoded() {
    let template = UriTemplate::parse("file:///文档/{name}").unwrap();
    assert_eq!(template.as_str(), "file:///文档/{name}");
    assert_eq!(
        template.expand(&[("name", "a b".into())]).unwrap(),
        "file:///%E6%96%87%E6%A1%A3/a%20b"
    );
}

/// Each variable once, with the operator of its first expression and every modifier it
/// carries anywhere.
#[test]
fn variables_in_order_with_their_modifiers() {
    let template = UriTemplate::parse("x{/path*}{?q,limit}{&path:2}{#frag}").unwrap();
    let summary: Vec<(&str, Operator, bool, bool)> = template
        .variables()
        .iter()
        .map(|v| (v.name.as_str(), v.operator, v.explode, v.prefix))
        .collect();
    assert_eq!(
        summary,
        [
            ("path", Operator::Path, true, true),
            ("q", Operator::Query, false, false),
            ("limit", Operator::Query, false, false),
            ("frag", Operator::Fragment, false, false),
        ]
    );
    assert!(Operator::QueryContinuation.is_query());
    assert!(!Operator::Path.is_query());
    assert_eq!(UriTemplate::parse("plain://x").unwrap().variables(), []);
}

/// A malformed template or a list meeting a prefix is an error naming the template.
#[test]
fn errors_name_the_template() {
    let error = UriTemplate::parse("memo://{id").unwrap_err();
    assert_eq!(error.template, "memo://{id");
    assert_eq!(
        error.to_string(),
        format!("URI template \"memo://{{id\": {}", error.reason)
    );
    assert!(UriTemplate::parse("a{=b}").is_err());
    // Outside ASCII inside an expression, even after a lone `%` (a fuzz case that made the
    // parser slice inside a character).
    let error = UriTemplate::parse("%{¡").unwrap_err();
    assert!(
        error
            .reason
            .starts_with("a character outside ASCII inside an expression")
    );
    assert!(UriTemplate::parse("x://{é}").is_err());
    assert!(UriTemplate::parse("a{b c}").is_err());
    let prefixed = UriTemplate::parse("{list:2}").unwrap();
    let error = prefixed
        .expand(&[("list", TemplateValue::List(vec!["a".into()]))])
        .unwrap_err();
    assert_eq!(error.template, "{list:2}");
    assert_eq!(
        expand(
            "{a}/{b}",
            &[("a", "1".into()), ("b", None::<String>.into())]
        )
        .unwrap(),
        "1/"
    );
}

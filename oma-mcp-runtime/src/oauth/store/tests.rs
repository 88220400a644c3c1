//! The login store on a real directory: what a file holds and is named, who may read it, and
//! what each operation returns.

use std::path::Path;

use serde_json::json;

use super::*;

const URL: &str = "http://127.0.0.1:8080/mcp";

/// A login for `server` with every field set: tokens that expire in an hour, a refresh token,
/// a client secret, and an empty granted scope between two others.
fn login(server: &str) -> StoredLogin {
    serde_json::from_value(json!({
        "server": server,
        "issuer": "http://127.0.0.1:1",
        "client_id": "client-1",
        "client_secret": "CLIENT-SECRET",
        "redirect_uri": "http://127.0.0.1:2/callback",
        "credentials": {
            "client_id": "client-1",
            "token_response": {
                "access_token": "ACCESS-TOKEN",
                "token_type": "Bearer",
                "expires_in": 3600,
                "refresh_token": "REFRESH-TOKEN"
            },
            "granted_scopes": ["read", "", "write"],
            "token_received_at": 1_700_000_000u64
        }
    }))
    .unwrap()
}

/// The file names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_is_named_by_the_hash_of_the_url() {
    let store = LoginStore::new("/logins");
    // SHA-256 of the URL as a JSON string, `"http://127.0.0.1:8080/mcp"`: its first 32 hex digits.
    assert_eq!(
        store.path(URL),
        Path::new("/logins/1d9f4546f6d640fc6f16744625d7fab1.json")
    );
    assert_eq!(store.dir(), Path::new("/logins"));
    assert_eq!(store.secrets_location(), "/logins");
}

#[test]
fn a_saved_login_loads_as_it_was_in_a_private_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = LoginStore::new(dir.path().join("credentials"));
    assert!(store.load(URL).unwrap().is_none());
    store.save(URL, &login("server-a")).unwrap();
    let loaded = store.load(URL).unwrap().unwrap();
    assert_eq!(
        serde_json::to_value(&loaded).unwrap(),
        serde_json::to_value(login("server-a")).unwrap()
    );
    // No temporary file is left beside it.
    assert_eq!(
        names(store.dir()),
        vec!["1d9f4546f6d640fc6f16744625d7fab1.json"]
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(store.dir()), 0o700);
        assert_eq!(mode(&store.path(URL)), 0o600);
        // An existing directory that others could read is made private.
        std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
        store.save(URL, &login("server-b")).unwrap();
        assert_eq!(mode(store.dir()), 0o700);
    }
    // Saving again replaces it.
    store.save(URL, &login("server-b")).unwrap();
    assert_eq!(store.load(URL).unwrap().unwrap().server, "server-b");
    assert_eq!(names(store.dir()).len(), 1);
}

#[test]
fn secrets_in_the_file_are_not_marked_and_a_keyring_is() {
    let text = serde_json::to_value(login("s")).unwrap();
    assert!(text.get("secrets").is_none(), "{text}");
    let mut in_keyring = login("s");
    in_keyring.secrets = SecretsIn::Keyring;
    assert_eq!(
        serde_json::to_value(&in_keyring).unwrap()["secrets"],
        "keyring"
    );
}

#[test]
fn scopes_expiry_and_refresh_token_are_read_from_the_tokens() {
    let full = login("s");
    assert_eq!(full.scopes(), vec!["read", "write"]);
    assert_eq!(full.expires_at(), Some(1_700_003_600));
    assert!(full.has_refresh_token());

    let mut bare = login("s");
    bare.credentials.token_response = serde_json::from_value(
        json!({"access_token": "A", "token_type": "Bearer", "refresh_token": null}),
    )
    .unwrap();
    bare.credentials.granted_scopes = vec![String::new()];
    assert_eq!(bare.scopes(), Vec::<&str>::new());
    assert_eq!(bare.expires_at(), None);
    assert!(!bare.has_refresh_token());

    let mut unknown_time = login("s");
    unknown_time.credentials.token_received_at = None;
    assert_eq!(unknown_time.expires_at(), None);

    let mut no_tokens = login("s");
    no_tokens.credentials.token_response = None;
    assert_eq!(no_tokens.expires_at(), None);
    assert!(!no_tokens.has_refresh_token());
}

#[test]
fn debug_shows_no_secret() {
    let text = format!("{:?}", login("server-a"));
    for secret in ["CLIENT-SECRET", "ACCESS-TOKEN", "REFRESH-TOKEN"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    for shown in [
        "server: \"server-a\"",
        "client_id: \"client-1\"",
        "client_secret: Some(\"***\")",
        "redirect_uri: \"http://127.0.0.1:2/callback\"",
        "secrets: File",
        "stale: None",
    ] {
        assert!(text.contains(shown), "{shown} not in {text}");
    }
}

#[test]
fn a_stale_login_keeps_its_identity_and_loses_its_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let store = LoginStore::new(dir.path());
    assert!(!store.mark_stale(URL, "invalid_grant").unwrap());
    store.save(URL, &login("server-a")).unwrap();
    assert!(store.mark_stale(URL, "invalid_grant").unwrap());
    let stale = store.load(URL).unwrap().unwrap();
    assert_eq!(stale.stale.as_deref(), Some("invalid_grant"));
    assert!(stale.credentials.token_response.is_none());
    assert_eq!(stale.client_id, "client-1");
    assert_eq!(stale.client_secret.as_deref(), Some("CLIENT-SECRET"));
}

#[test]
fn removing_says_whether_there_was_a_login() {
    let dir = tempfile::tempdir().unwrap();
    let store = LoginStore::new(dir.path());
    assert!(!store.remove(URL).unwrap());
    store.save(URL, &login("server-a")).unwrap();
    assert!(store.remove(URL).unwrap());
    assert!(!store.path(URL).exists());
    assert!(!store.remove(URL).unwrap());
    // A file that is no login goes too.
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "not json").unwrap();
    assert!(store.remove_file(&junk).unwrap());
    assert!(!junk.exists());
    // What cannot be removed is an error that names it.
    let not_a_file = dir.path().join("dir.json");
    std::fs::create_dir(&not_a_file).unwrap();
    let error = store.remove_file(&not_a_file).unwrap_err();
    assert_eq!(error.path, not_a_file);
    assert!(
        error.what.starts_with("cannot be removed: "),
        "{}",
        error.what
    );
}

#[test]
fn a_file_that_is_no_login_is_an_error_naming_it_and_where() {
    let dir = tempfile::tempdir().unwrap();
    let store = LoginStore::new(dir.path());
    std::fs::write(store.path(URL), "{\n  \"server\": 7\n}").unwrap();
    let error = store.load(URL).unwrap_err();
    assert_eq!(error.path, store.path(URL));
    assert_eq!(
        error.what,
        "is not a stored login (line 2, column 13); remove it with `oma-mcp logout`"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the OAuth credential store {}: is not a stored login (line 2, column 13); remove \
             it with `oma-mcp logout`",
            store.path(URL).display()
        )
    );
    // A directory where the file should be cannot be read.
    let dir_store = LoginStore::new(dir.path().join("sub"));
    std::fs::create_dir_all(dir_store.path(URL)).unwrap();
    let error = dir_store.load(URL).unwrap_err();
    assert!(error.what.starts_with("cannot be read: "), "{}", error.what);
}

#[test]
fn the_list_is_every_login_by_server_without_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = LoginStore::new(dir.path().join("credentials"));
    assert!(store.list().unwrap().is_empty());
    store.save("http://b.example/mcp", &login("b")).unwrap();
    store.save("http://a.example/mcp", &login("a")).unwrap();
    std::fs::write(store.dir().join("notes.txt"), "not a login").unwrap();
    std::fs::write(store.dir().join("broken.json"), "{").unwrap();
    let listed: Vec<(PathBuf, String)> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|(path, login)| (path, login.server))
        .collect();
    assert_eq!(
        listed,
        vec![
            (store.path("http://a.example/mcp"), "a".to_owned()),
            (store.path("http://b.example/mcp"), "b".to_owned()),
        ]
    );
    // A directory that is a file cannot be read.
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let error = LoginStore::new(&file).list().unwrap_err();
    assert_eq!(error.path, file);
    assert!(error.what.starts_with("cannot be read: "), "{}", error.what);
}

#[test]
fn a_directory_that_cannot_be_created_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let store = LoginStore::new(file.join("credentials"));
    let error = store.save(URL, &login("a")).unwrap_err();
    assert_eq!(error.path, file.join("credentials"));
    assert!(
        error.what.starts_with("cannot be created: "),
        "{}",
        error.what
    );
}

/// Without the `keyring` feature, a login whose secrets are in the keyring cannot be loaded
/// (and says why), is left out of the list, and its file can still be removed.
#[cfg(not(feature = "keyring"))]
#[test]
fn a_keyring_login_without_keyring_support() {
    let dir = tempfile::tempdir().unwrap();
    let store = LoginStore::new(dir.path());
    let mut in_keyring = login("k");
    in_keyring.secrets = SecretsIn::Keyring;
    store.save(URL, &in_keyring).unwrap();
    // Saving without a keyring keeps the secrets in the file.
    assert_eq!(store.load(URL).unwrap().unwrap().secrets, SecretsIn::File);
    // A file that says the keyring keeps them, as one written by a build with a keyring.
    let mut on_disk = serde_json::to_value(&in_keyring).unwrap();
    on_disk["secrets"] = json!("keyring");
    std::fs::write(store.path(URL), on_disk.to_string()).unwrap();
    let error = store.load(URL).unwrap_err();
    assert_eq!(
        error.what,
        "keeps its secrets in the system keyring, and this build has no keyring support \
         (oma-mcp-runtime's cargo feature `keyring`); remove the login with `oma-mcp logout` \
         and log in again"
    );
    assert!(store.list().unwrap().is_empty());
    assert!(store.remove(URL).unwrap());
    assert!(!store.path(URL).exists());
}

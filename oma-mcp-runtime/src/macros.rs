//! The macros generated code and its includer call: `include_tools!`, and the hidden
//! `drift_items!`, `fake_items!`, `__require_http!` and `__require_oauth!`, which keep or
//! refuse the generated items that need a feature of this crate (a crate that includes
//! generated code cannot test this crate's features itself).

/// Includes the code `oma-mcp-build` generated for the manifest server `$name` from
/// `$OUT_DIR/<name>.rs`, like `tonic::include_proto!`.
///
/// ```ignore
/// mod everything {
///     oma_mcp_runtime::include_tools!("everything");
/// }
/// ```
#[macro_export]
macro_rules! include_tools {
    ($name:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $name, ".rs"));
    };
}

/// The items of a generated module that use the drift engine (`drift()` and
/// `connect(policy)`): with cargo feature `drift` (on by default) they are emitted as written;
/// without it they are left out, so the rest of the module (the tools, `connect_config()`,
/// `SNAPSHOT`) compiles without the drift engine. The code `oma-mcp-build` generates wraps
/// those items in it; it is not meant to be called by hand.
#[cfg(feature = "drift")]
#[doc(hidden)]
#[macro_export]
macro_rules! drift_items {
    ($($item:item)*) => {
        $($item)*
    };
}

/// The items of a generated module that use the drift engine (`drift()` and
/// `connect(policy)`): with cargo feature `drift` (on by default) they are emitted as written;
/// without it (this build) they are left out, so the rest of the module (the tools,
/// `connect_config()`, `SNAPSHOT`) compiles without the drift engine. The code
/// `oma-mcp-build` generates wraps those items in it; it is not meant to be called by hand.
#[cfg(not(feature = "drift"))]
#[doc(hidden)]
#[macro_export]
macro_rules! drift_items {
    ($($item:item)*) => {};
}

/// The items of a generated module that use fakes (`fake()`): with cargo feature `fake`
/// (this build) they are emitted as written; without it they are left out. The code
/// `oma-mcp-build` generates wraps those items in it; it is not meant to be called by hand.
#[cfg(feature = "fake")]
#[doc(hidden)]
#[macro_export]
macro_rules! fake_items {
    ($($item:item)*) => {
        $($item)*
    };
}

/// The items of a generated module that use fakes (`fake()`): with cargo feature `fake` they
/// are emitted as written; without it (this build) they are left out. The code
/// `oma-mcp-build` generates wraps those items in it; it is not meant to be called by hand.
#[cfg(not(feature = "fake"))]
#[doc(hidden)]
#[macro_export]
macro_rules! fake_items {
    ($($item:item)*) => {};
}

/// Emitted by `oma-mcp-build` in the generated module of a server pinned by URL, whose
/// `connect_config()` connects over streamable HTTP: with cargo feature `http` it expands to
/// nothing; without it (this build) it is a compile error naming the server and the feature,
/// so the missing feature shows when the crate is built, not as
/// [`ConfigError::HttpFeatureDisabled`](crate::error::ConfigError::HttpFeatureDisabled) when it
/// runs. Not meant to be called by hand.
#[cfg(not(feature = "http-no-provider"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_http {
    ($server:literal) => {
        ::core::compile_error!(::core::concat!(
            "the MCP server `",
            $server,
            "` is pinned by URL, and its generated `connect_config()` connects over streamable \
             HTTP: enable oma-mcp-runtime's cargo feature `http` (`features = [\"http\"]` on the \
             oma-mcp-runtime dependency in Cargo.toml; `http-ring` for rustls on ring)"
        ));
    };
}

/// Emitted by `oma-mcp-build` in the generated module of a server pinned by URL, whose
/// `connect_config()` connects over streamable HTTP: with cargo feature `http` (this build)
/// it expands to nothing; without it, it is a compile error naming the server and the
/// feature. Not meant to be called by hand.
#[cfg(feature = "http-no-provider")]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_http {
    ($server:literal) => {};
}

/// Emitted by `oma-mcp-build` in the generated module of a server whose pin has an `oauth`
/// table: without cargo feature `oauth` (this build), a compile error naming the server and
/// the feature, as its `connect_config()` would fail with
/// [`ConfigError::OAuthFeatureDisabled`](crate::error::ConfigError::OAuthFeatureDisabled).
/// Not meant to be called by hand.
#[cfg(not(feature = "oauth"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_oauth {
    ($server:literal) => {
        ::core::compile_error!(::core::concat!(
            "the MCP server `",
            $server,
            "` is pinned with an `oauth` table, and its generated `connect_config()` \
             authorizes with OAuth: enable oma-mcp-runtime's cargo feature `oauth` \
             (`features = [\"oauth\"]` on the oma-mcp-runtime dependency in Cargo.toml)"
        ));
    };
}

/// Emitted by `oma-mcp-build` in the generated module of a server whose pin has an `oauth`
/// table: with cargo feature `oauth` (this build) it expands to nothing. Not meant to be
/// called by hand.
#[cfg(feature = "oauth")]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_oauth {
    ($server:literal) => {};
}

#[cfg(test)]
mod drift_items_tests {
    /// What `EMITTED` is when `drift_items!` leaves its items out: a glob import, which an
    /// item of the same name shadows (then the import and this constant go unused).
    #[allow(dead_code)]
    mod fallback {
        pub const EMITTED: bool = false;
    }

    mod generated {
        #[allow(unused_imports)]
        pub use super::fallback::*;
        crate::drift_items! {
            pub const EMITTED: bool = true;
        }
    }

    #[test]
    fn drift_items_are_emitted_exactly_with_the_drift_feature() {
        assert_eq!(generated::EMITTED, cfg!(feature = "drift"));
    }
}

/// With feature `http`, `__require_http!` compiles to nothing at item position, as generated
/// code calls it (without the feature it is a compile error: `oma-mcp-build`'s build-script
/// test builds a URL pin against this crate without the feature and checks the message).
#[cfg(all(test, feature = "http-no-provider"))]
mod require_http_tests {
    crate::__require_http!("remote");
}

//! `get-sum` requires `a` and `b`: the constructor takes both, and the struct cannot be
//! written as a literal outside its module (so an optional property added later breaks no
//! call site).

#[allow(dead_code)]
mod golden {
    include!("../fixtures/golden.rs");
}

fn main() {
    let _ = golden::GetSumArgs::new(1.0);
    let _ = golden::GetSumArgs {
        a: 1.0,
        b: 2.0,
        round_mode: None,
    };
}

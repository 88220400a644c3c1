//! A prompt's required argument and a resource template's path variable are parameters of
//! `new`: leaving one out does not compile.

#[allow(dead_code)]
mod own {
    include!("../fixtures/own.rs");
}

fn main() {
    let _ = own::prompts::ReviewCodeArgs::new();
    let _ = own::resources::Note::new();
}

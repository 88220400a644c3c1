//! What the rules know of one item while they read it: the cues each text holds ([`Cues`])
//! and the item holds anywhere ([`Flags`]), what the item is for ([`Purpose`], by the words of
//! its name, title and description), and the findings gathered so far ([`Findings`]). Shared
//! by the text rules and the parameter and annotation rules.

use std::collections::BTreeSet;

use super::chars::Hit;
use super::{Finding, Level, Subject};

/// The cues found in one text; each is the byte offset where it starts.
#[derive(Debug, Default, Clone)]
pub(crate) struct Cues {
    pub(crate) secrecy: Option<usize>,
    pub(crate) override_strong: Option<usize>,
    pub(crate) override_weak: Option<usize>,
    pub(crate) coercion: Option<usize>,
    pub(crate) addressed: bool,
    pub(crate) tamper: Option<usize>,
    pub(crate) generic: Option<usize>,
    pub(crate) markup: Option<(usize, String)>,
    pub(crate) role: Option<usize>,
    pub(crate) path: Option<(usize, String)>,
    pub(crate) secret: Option<(usize, String)>,
    pub(crate) conversation: Option<usize>,
    pub(crate) exfil: Option<(usize, String)>,
    pub(crate) shadow: Option<(usize, String, String)>,
    pub(crate) unknown_tool: Option<(usize, String)>,
}

/// Which cues the item holds anywhere.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Flags {
    pub(crate) secrecy: bool,
    pub(crate) override_strong: bool,
    pub(crate) override_weak: bool,
    pub(crate) coercion: bool,
    pub(crate) tamper: bool,
    pub(crate) generic: bool,
    pub(crate) markup: bool,
    pub(crate) path: bool,
    pub(crate) secret: bool,
    pub(crate) conversation: bool,
    pub(crate) exfil: bool,
    pub(crate) shadow: bool,
    pub(crate) unknown_tool: bool,
}

impl Flags {
    pub(crate) fn add(&mut self, c: &Cues) {
        self.secrecy |= c.secrecy.is_some();
        self.override_strong |= c.override_strong.is_some();
        self.override_weak |= c.override_weak.is_some();
        self.coercion |= c.coercion.is_some();
        self.tamper |= c.tamper.is_some();
        self.generic |= c.generic.is_some();
        self.markup |= c.markup.is_some() || c.role.is_some();
        self.path |= c.path.is_some();
        self.secret |= c.secret.is_some();
        self.conversation |= c.conversation.is_some();
        self.exfil |= c.exfil.is_some();
        self.shadow |= c.shadow.is_some();
        self.unknown_tool |= c.unknown_tool.is_some();
    }

    /// Cues that only an attack has: secrecy, replacing instructions, rewriting another
    /// tool's arguments, smuggling content into a parameter.
    pub(crate) fn attack(self) -> bool {
        self.secrecy || self.override_strong || self.tamper || self.exfil
    }

    /// Any instruction to the model beyond describing the tool.
    pub(crate) fn directive(self) -> bool {
        self.attack()
            || self.override_weak
            || self.coercion
            || self.generic
            || self.path
            || self.secret
            || self.conversation
            || self.shadow
            || self.unknown_tool
    }
}

/// What the item is for: the words of its name, title and description, lowercase.
pub(crate) struct Purpose(pub(crate) BTreeSet<String>);

impl Purpose {
    pub(crate) fn has(&self, vocabulary: &str) -> bool {
        self.0.iter().any(|w| {
            vocabulary.split('|').any(|v| match v.strip_suffix('*') {
                Some(prefix) => w.starts_with(prefix),
                None => w == v,
            })
        })
    }
}

pub(crate) const FILE_PURPOSE: &str = "file|files|director*|folder*|path|paths|filesystem|fs|disk|document*|workspace*|repo|repos|repository|repositories|dotfile*|search*|grep|glob|edit*|read|write|config*";
pub(crate) const AUTH_PURPOSE: &str = "auth*|login|logon|signin|sign|credential*|password*|passphrase|secret*|key|keys|apikey|token|tokens|vault|keyvault|account*|connect*|certificat*|ssh|oauth|session*|user|users|admin*|access|permission*|identity|identities|config*|setup|register*|database*|sql|server|servers|cluster*|api|apis";
pub(crate) const KEY_PURPOSE: &str = "ssh|key|keys|keypair|wallet*|crypto*|sign|signing|certificat*|gpg|pgp|encrypt*|decrypt*|vault|keyvault|secret*|vm|vms|machine*|host|hosts|server|servers";
pub(crate) const CONVERSATION_PURPOSE: &str = "chat*|conversation*|message*|memory|memories|history|feedback|prompt*|thread*|transcript*|session*|journal|remember|recall|thought*|thinking|reason*|llm|sampling|completion*|agent*|codex|reply|replies|comment*|email*|mail*";

/// Lowercase words of an identifier or a text: split at anything but letters and digits and
/// at camelCase humps.
pub(crate) fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if prev_lower && c.is_uppercase() && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Findings with the index of the text they are in, for ordering.
pub(crate) struct Findings<'s> {
    pub(crate) subject: &'s Subject,
    pub(crate) out: Vec<(usize, Finding)>,
}

impl Findings<'_> {
    pub(crate) fn hit(&mut self, index: usize, t: &super::walk::Text<'_>, h: Hit) {
        self.push(
            index,
            t.pointer.clone(),
            t.text,
            h.at,
            h.rule,
            h.level,
            h.message,
        );
    }

    #[allow(clippy::too_many_arguments)] // one place builds every finding
    pub(crate) fn push(
        &mut self,
        index: usize,
        pointer: String,
        text: &str,
        at: usize,
        rule: &'static str,
        level: Level,
        message: String,
    ) {
        let finding = Finding::new(
            rule,
            level,
            self.subject.clone(),
            pointer,
            super::text::excerpt(text, at),
            message,
        );
        self.out.push((index, finding));
    }

    /// One finding per rule and pointer (the highest level), in walk order, then rule order.
    pub(crate) fn finish(mut self) -> Vec<Finding> {
        let rank = |id: &str| {
            super::RULES
                .iter()
                .position(|r| r.id == id)
                .unwrap_or(usize::MAX)
        };
        self.out.sort_by(|(ia, a), (ib, b)| {
            ia.cmp(ib)
                .then_with(|| rank(a.rule).cmp(&rank(b.rule)))
                .then_with(|| b.level.cmp(&a.level))
        });
        let mut seen = BTreeSet::new();
        self.out
            .into_iter()
            .filter(|(_, f)| seen.insert((f.rule, f.pointer.clone())))
            .map(|(_, f)| f)
            .collect()
    }
}

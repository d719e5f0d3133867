//! The canonical encoding of a compiled table and its blake3 digest.
//!
//! The digest names a policy's meaning, not its formatting: comments, key
//! order and whitespace in the TOML do not change it; any change to a verb, a
//! deny entry, a card or a slot does. The encoding is explicit (tagged,
//! length-prefixed, little-endian) rather than `Debug` or serde output, so it
//! is stable across platforms, Rust versions and dependency upgrades.

use crate::table::{Cockpit, ReadVerb, SlotKind};

/// 64 lowercase hex digits of blake3 over [`encode`].
pub fn digest(cockpit: &Cockpit) -> String {
    blake3::hash(&encode(cockpit)).to_hex().to_string()
}

/// The canonical bytes of everything in the table except its digest.
pub fn encode(c: &Cockpit) -> Vec<u8> {
    let mut e = Encoder(Vec::with_capacity(16 * 1024));
    e.str("m1nd-policy-encoding-v1");
    e.str(&c.schema);
    e.str(&c.title);
    e.str(&c.negative_default);
    e.u64(c.budget.root_tokens.into());
    e.u64(c.budget.drill_tokens.into());
    e.len(c.verbs.len());
    for v in c.verbs.iter() {
        e.str(&v.name);
        e.str(&v.summary);
        e.strs(v.requires.iter().map(|s| &**s));
        e.strs(v.accepts.iter().map(|s| &**s));
        e.bool(v.retired);
    }
    e.strs(c.deny.tools.iter().map(|s| &**s));
    e.len(c.deny.status_only.len());
    for s in c.deny.status_only.iter() {
        e.str(&s.verb);
        e.str(&s.argument);
        e.strs(s.allowed.iter().map(|a| &**a));
    }
    e.len(c.cards.len());
    for card in c.cards.iter() {
        e.str(&card.id);
        e.str(&card.title);
        e.str(&card.why);
        e.str(&card.tool);
        e.pairs(card.arguments.iter().map(|a| (&*a.name, &*a.value)));
        e.opt(card.reject_tool.as_deref());
        e.opt(card.reject_reason.as_deref());
        e.bool(card.overview);
    }
    e.len(c.slots.len());
    for slot in c.slots.iter() {
        e.u64(slot.n.into());
        e.str(slot.facet.key());
        e.bool(slot.pinned);
        match &slot.kind {
            SlotKind::Door { text, source } => {
                e.tag(1);
                e.str(text);
                match source {
                    Some(r) => {
                        e.tag(1);
                        e.read(r);
                    }
                    None => e.tag(0),
                }
            }
            SlotKind::Read { read } => {
                e.tag(2);
                e.read(read);
            }
            SlotKind::Help { cards } => {
                e.tag(3);
                e.strs(cards.iter().map(|h| &*h.card));
            }
        }
        e.pairs(slot.labels.iter().map(|l| (&*l.condition, &*l.text)));
        match &slot.collection {
            None => e.tag(0),
            Some(col) => {
                e.tag(1);
                e.str(&col.items);
                e.u64(col.limit.into());
                e.len(col.actions.len());
                for a in col.actions.iter() {
                    e.read(&a.read);
                    e.pairs(a.bind.iter().map(|b| (&*b.argument, &*b.field)));
                }
            }
        }
    }
    e.strs(c.human_only.verbs.iter().map(|s| &**s));
    e.str(&c.human_only.acts_at);
    e.len(c.slots.len());
    for slot in c.slots.iter() {
        e.opt(slot.link.as_deref());
    }
    e.0
}

struct Encoder(Vec<u8>);

impl Encoder {
    fn tag(&mut self, t: u8) {
        self.0.push(t);
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    fn bool(&mut self, b: bool) {
        self.tag(u8::from(b));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.tag(1);
                self.str(s);
            }
            None => self.tag(0),
        }
    }
    fn strs<'a>(&mut self, items: impl ExactSizeIterator<Item = &'a str>) {
        self.len(items.len());
        for s in items {
            self.str(s);
        }
    }
    fn pairs<'a>(&mut self, items: impl ExactSizeIterator<Item = (&'a str, &'a str)>) {
        self.len(items.len());
        for (a, b) in items {
            self.str(a);
            self.str(b);
        }
    }
    fn read(&mut self, r: &ReadVerb) {
        self.str(r.card());
        self.str(r.verb());
        self.pairs(r.arguments().iter().map(|a| (&*a.name, &*a.value)));
    }
}

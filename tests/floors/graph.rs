//! Modules as siblings: a reference from `a::x` to `b::y` is an edge between
//! the siblings `a` and `b` (the children of their deepest common module),
//! and a circle among siblings is a module circle, however many files apart
//! its two ends are. A reference to an ancestor (`super::Item`) is no edge:
//! a parent holds its children.

use std::collections::{BTreeMap, BTreeSet};

use super::modules::{Crate, ModPath};

/// Every edge between siblings: parent → (from child → to children).
pub type Siblings = BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>>;

pub fn siblings(krate: &Crate) -> Siblings {
    let mut edges: Siblings = BTreeMap::new();
    for (from, reached) in &krate.names {
        for to in reached {
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue;
            }
            let parent = from[..common].to_vec();
            let entry = edges.entry(parent).or_default();
            entry.entry(from[common].clone()).or_default().insert(to[common].clone());
        }
    }
    edges
}

/// Each circle among one parent's children, as the children on it in order.
pub fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's strongly connected components; a component of two or more is a circle.
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.push(top.to_owned());
                    if top == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

//! A [`PolicyDiff`] as text (a terminal), JSON (tools) and Markdown (a pull
//! request comment). All three carry the same facts in the same order.

use serde_json::{Value, json};

use super::{Bound, Category, PolicyDiff};

/// What a category's heading says, so a reader knows why it matters.
const fn heading(category: Category) -> &'static str {
    match category {
        Category::Loosened => "loosened: a session can now reach more",
        Category::Tightened => "tightened: a session can now reach less",
        Category::Verbs => "verbs",
        Category::Menu => "menu",
    }
}

fn bound_line(label: &str, b: &Bound) -> String {
    format!(
        "{label}: root {} of {} tokens, drill {} of {} (at {})",
        b.root_tokens,
        b.root_budget,
        b.drill_tokens,
        b.drill_budget,
        if b.drill_level.is_empty() { "-" } else { &b.drill_level }
    )
}

/// For a terminal: loosened entries are marked `!`, so they are found first.
pub fn text(d: &PolicyDiff, old: &str, new: &str) -> String {
    let mut out = format!("policy diff {old} → {new}\n");
    if d.is_empty() {
        out.push_str("no change: both are the same policy\n");
    }
    for category in Category::ALL {
        let changes: Vec<_> = d.of(category).collect();
        if changes.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{} ({})\n", heading(category), changes.len()));
        let mark = if category == Category::Loosened { "!" } else { "-" };
        for c in changes {
            out.push_str(&format!("  {mark} {}: {}\n", c.subject, c.detail));
        }
    }
    if let Some([old_b, new_b]) = &d.bound {
        out.push_str("\nbudget bound (M011's worst case)\n");
        out.push_str(&format!("  {}\n  {}\n", bound_line("old", old_b), bound_line("new", new_b)));
    }
    out.push_str(&format!("\ndigest\n  old: {}\n  new: {}\n", d.digest[0], d.digest[1]));
    out
}

fn bound_json(b: &Bound) -> Value {
    json!({
        "root_budget": b.root_budget,
        "drill_budget": b.drill_budget,
        "root_tokens": b.root_tokens,
        "drill_tokens": b.drill_tokens,
        "drill_level": b.drill_level,
    })
}

/// For tools: one array per category (always present, in order of danger).
pub fn json(d: &PolicyDiff, old: &str, new: &str) -> Value {
    let mut value = json!({ "old": old, "new": new });
    for category in Category::ALL {
        let changes: Vec<Value> = d.of(category).map(|c| json!({ "subject": c.subject, "detail": c.detail })).collect();
        value[category.key()] = Value::Array(changes);
    }
    value["budget"] = match &d.bound {
        Some([old_b, new_b]) => json!({ "old": bound_json(old_b), "new": bound_json(new_b) }),
        None => Value::Null,
    };
    value["digest"] = json!({ "old": d.digest[0], "new": d.digest[1] });
    value
}

/// Markdown text: backticks and table pipes cannot escape the cell they are in.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// For a pull request comment.
pub fn markdown(d: &PolicyDiff, old: &str, new: &str) -> String {
    let mut out = format!("### Policy diff `{}` → `{}`\n\n", cell(old), cell(new));
    let loosened = d.of(Category::Loosened).count();
    if loosened > 0 {
        out.push_str(&format!(
            "> [!WARNING]\n> This change loosens the guard in {loosened} place{}.\n\n",
            if loosened == 1 { "" } else { "s" }
        ));
    }
    if d.is_empty() {
        out.push_str("No change: both are the same policy.\n\n");
    }
    for category in Category::ALL {
        let changes: Vec<_> = d.of(category).collect();
        if changes.is_empty() {
            continue;
        }
        out.push_str(&format!("#### {}\n\n", cell(heading(category))));
        for c in changes {
            out.push_str(&format!("- **{}**: {}\n", cell(&c.subject), cell(&c.detail)));
        }
        out.push('\n');
    }
    if let Some([old_b, new_b]) = &d.bound {
        out.push_str("#### budget bound (M011's worst case, tokens)\n\n| | root | drill |\n|---|---|---|\n");
        for (label, b) in [("old", old_b), ("new", new_b)] {
            out.push_str(&format!(
                "| {label} | {} of {} | {} of {} (at `{}`) |\n",
                b.root_tokens,
                b.root_budget,
                b.drill_tokens,
                b.drill_budget,
                cell(&b.drill_level)
            ));
        }
    }
    out.push_str(&format!("\ndigest: `{}` → `{}`\n", d.digest[0], d.digest[1]));
    out
}

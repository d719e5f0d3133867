//! "Did you mean": the nearest candidate within a small edit distance.
//!
//! The caller controls the size of the name (a tool, argument or prompt name
//! from a client), so the search must cost no more than a lookup, whatever
//! that size. It is bounded three ways:
//!
//! 1. a candidate whose length differs from the name's by more than the limit
//!    cannot be within it, and is skipped before any distance is computed; a
//!    name longer than every candidate plus the limit is therefore never
//!    searched at all (not even copied); nor is one whose letters differ from
//!    the name's by more than the limit (an ASCII name's letter counts, a
//!    lower bound on the distance that costs one pass over the candidate);
//! 2. the distance is computed only inside the band of cells within the
//!    limit of the diagonal, and stops at the first row whose minimum is past
//!    the limit;
//! 3. the limit shrinks to the best distance found so far.
//!
//! The distance is the optimal string alignment distance (insertions,
//! deletions, substitutions and transpositions of adjacent characters, no
//! substring edited twice), over characters.

/// The closest candidate to `name`, if any is close enough to be a typo:
/// within a third of the name's length (at least 1); among equally close
/// candidates, the one most alike by Jaro-Winkler, then the first given.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    nearest(name, candidates, &mut 0)
}

/// [`suggest`], counting in `cells` every distance cell it computes: the
/// whole of its work that grows with the name.
pub(crate) fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    cells: &mut usize,
) -> Option<&'a str> {
    let length = name.chars().count();
    let mut limit = (length / 3).max(1);
    let mut seen: Option<(Vec<char>, Option<Letters>)> = None;
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate.chars().count().abs_diff(length) > limit {
            continue;
        }
        let (chars, letters) = seen.get_or_insert_with(|| (name.chars().collect(), Letters::of(name)));
        if letters.as_ref().and_then(|l| l.lower_bound(candidate)).is_some_and(|bound| bound > limit) {
            continue;
        }
        let distance = if name.is_ascii() && candidate.is_ascii() {
            bounded_distance(name.as_bytes(), candidate.as_bytes(), limit, cells)
        } else {
            bounded_distance(chars, &candidate.chars().collect::<Vec<char>>(), limit, cells)
        };
        let Some(distance) = distance else {
            continue;
        };
        let better = match best {
            None => true,
            Some((d, _)) if distance < d => true,
            Some((d, held)) => {
                distance == d && strsim::jaro_winkler(name, candidate) > strsim::jaro_winkler(name, held)
            }
        };
        if better {
            best = Some((distance, candidate));
            limit = distance;
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// How many of each ASCII character an ASCII name holds, and its length.
struct Letters([usize; 128], usize);

impl Letters {
    fn of(name: &str) -> Option<Self> {
        let mut counts = [0usize; 128];
        for b in name.bytes() {
            *counts.get_mut(usize::from(b))? += 1;
        }
        Some(Letters(counts, name.len()))
    }

    /// A lower bound on the distance from the name to an ASCII `candidate`:
    /// an edit adds or removes at most one character on each side of the
    /// count (a transposition none), so neither the characters only the
    /// name has nor those only the candidate has can outnumber the edits.
    fn lower_bound(&self, candidate: &str) -> Option<usize> {
        let mut left = self.0;
        let mut theirs_only = 0;
        for b in candidate.bytes() {
            match left.get_mut(usize::from(b))? {
                0 => theirs_only += 1,
                n => *n -= 1,
            }
        }
        let shared = candidate.len() - theirs_only;
        Some(theirs_only.max(self.1 - shared))
    }
}

/// The optimal string alignment distance between `a` and `b` if it is at
/// most `limit`, else `None`; adds each cell computed to `cells`.
fn bounded_distance<T: PartialEq>(a: &[T], b: &[T], limit: usize, cells: &mut usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    // Every value past the limit is the same to the search: clamp to `over`.
    let over = limit + 1;
    let width = b.len() + 1;
    let mut before: Vec<usize> = vec![over; width];
    let mut above: Vec<usize> = (0..width).map(|j| j.min(over)).collect();
    let mut row: Vec<usize> = vec![over; width];
    for i in 1..=a.len() {
        row.fill(over);
        row[0] = i.min(over);
        let mut row_min = row[0];
        // Cells further than `limit` from the diagonal are past the limit.
        for j in i.saturating_sub(limit).max(1)..=(i + limit).min(b.len()) {
            *cells += 1;
            let substitution = above[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut d = substitution.min(above[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d.min(over);
            row_min = row_min.min(row[j]);
        }
        // A row is at most one more than the row above, so once a whole row
        // is past the limit, every later row is too.
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut before, &mut above);
        std::mem::swap(&mut above, &mut row);
    }
    let distance = above[b.len()];
    (distance <= limit).then_some(distance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn a_name_longer_than_every_candidate_costs_no_distance_at_all() {
        let verbs = ["doctor", "drift", "impact", "system_blocks_snapshot"];
        for length in [40, 256, 257, 100_000] {
            let mut cells = 0;
            assert_eq!(nearest(&"x".repeat(length), verbs, &mut cells), None);
            assert_eq!(cells, 0, "a {length}-character name");
        }
    }

    #[test]
    fn the_work_stays_inside_the_band_and_stops_at_the_limit() {
        // Nothing in common: past the limit as soon as the row's first cell is.
        let limit = 3;
        let mut cells = 0;
        assert_eq!(bounded_distance(&chars("abcdefghi"), &chars("zyxwvutsr"), limit, &mut cells), None);
        assert!(cells <= (limit + 1) * (2 * limit + 1), "{cells} cells");
        // A long pair that drifts apart slowly, one transposition every four
        // characters: within the band (600 × 5 cells at most, not 600 × 600),
        // and only until the third transposition takes the rows past 2.
        let (a, b) = ("abcd".repeat(150), "abdc".repeat(150));
        let mut cells = 0;
        assert_eq!(bounded_distance(&chars(&a), &chars(&b), 2, &mut cells), None);
        assert!(cells <= 16 * 5, "{cells} cells");
    }

    #[test]
    fn the_limit_shrinks_to_the_best_so_far() {
        let candidates = ["doctor", "doctxr", "dxctxr"];
        let mut first_exact = 0;
        assert_eq!(nearest("doctor", candidates, &mut first_exact), Some("doctor"));
        let mut exact_last = 0;
        assert_eq!(nearest("doctor", candidates.iter().rev().copied(), &mut exact_last), Some("doctor"));
        assert!(first_exact < exact_last, "{first_exact} cells with the exact name first, {exact_last} last");
    }

    #[test]
    fn a_candidate_made_of_other_letters_costs_no_distance_at_all() {
        let mut cells = 0;
        assert_eq!(nearest("zzzzzz", ["doctor", "drifts", "impact"], &mut cells), None);
        assert_eq!(cells, 0);
        // The bound is never above the distance: a transposition keeps every letter.
        assert_eq!(suggest("doctro", ["doctor"]), Some("doctor"));
        assert_eq!(Letters::of("abcdef").and_then(|l| l.lower_bound("abcxyz")), Some(3));
        assert_eq!(Letters::of("abc").and_then(|l| l.lower_bound("abcd")), Some(1));
    }

    proptest! {
        #[test]
        fn the_letter_bound_never_exceeds_the_distance(a in "[abc]{0,9}", b in "[abc]{0,9}") {
            let bound = Letters::of(&a).and_then(|l| l.lower_bound(&b)).expect("ascii");
            prop_assert!(bound <= strsim::osa_distance(&a, &b), "{} > distance", bound);
        }
    }

    #[test]
    fn ties_go_to_the_most_alike_then_the_first() {
        assert_eq!(suggest("abcde", ["xbcde", "abcdx"]), Some("abcdx"), "a shared prefix weighs more");
        assert_eq!(suggest("abcd", ["abcx", "abcy"]), Some("abcx"));
    }

    proptest! {
        #[test]
        fn the_bounded_distance_is_the_full_one_within_the_limit(
            a in "[abc]{0,9}", b in "[abc]{0,9}", limit in 1usize..6,
        ) {
            let full = strsim::osa_distance(&a, &b);
            let bounded = bounded_distance(&chars(&a), &chars(&b), limit, &mut 0);
            prop_assert_eq!(bounded, (full <= limit).then_some(full));
        }
    }
}

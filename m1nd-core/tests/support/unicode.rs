//! What must never reach a person from untrusted text, decided from ICU4X's
//! Unicode data (`icu_properties`), not from the sanitiser's own tables.
//!
//! One definition for every check that judges the sanitiser's output: the
//! code-point-by-code-point tests (`sanitize_unicode.rs`), the hostile-state
//! tests of the composer, and the fuzz targets (`fuzz/`, which include this
//! file by path), so "invisible" means the same thing everywhere.

use icu_properties::props::{BidiControl, DefaultIgnorableCodePoint, GeneralCategory};
use icu_properties::{CodePointMapData, CodePointSetData};
use m1nd_policy::sanitize::FILLERS;

/// A character that draws nothing: a format character (General_Category Cf:
/// bidi controls, zero-width characters, the TAG block's characters), a
/// default-ignorable code point, a bidi control, or a blank filler that
/// Unicode does not call ignorable (the sanitiser's [`FILLERS`]).
pub fn is_invisible(c: char) -> bool {
    CodePointMapData::<GeneralCategory>::new().get(c) == GeneralCategory::Format
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || CodePointSetData::new::<BidiControl>().contains(c)
        || FILLERS.contains(&c)
}

/// A character that controls or breaks text, which the sanitiser folds to one
/// plain space: a control (Cc), a line or paragraph separator (Zl, Zp), or a
/// space separator (Zs) other than the plain space itself.
pub fn breaks_text(c: char) -> bool {
    c != ' '
        && matches!(
            CodePointMapData::<GeneralCategory>::new().get(c),
            GeneralCategory::Control
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
                | GeneralCategory::SpaceSeparator
        )
}

//! Masses in field values and names (`850g`, `1,5 kg`, `weight_lbs`).

use std::sync::LazyLock;

use regex::Regex;

use crate::vocab::text::fold;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MassUnit {
    G,
    Kg,
    Lb,
}

impl MassUnit {
    fn grams(self) -> f64 {
        match self {
            Self::G => 1.0,
            Self::Kg => 1000.0,
            Self::Lb => 453.592_37,
        }
    }

    pub fn convert(value: f64, from: Self, to: Self) -> f64 {
        value * from.grams() / to.grams()
    }
}

/// The mass unit a text states after its first number (`1.5 kg`, `850g`).
pub(crate) fn mass_unit_in(text: &str) -> Option<MassUnit> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\d\s*(kgs?|grams?|gr|g|lbs?)\b").ok());
    let folded = fold(text);
    let caps = RE.as_ref()?.captures(&folded)?;
    Some(match caps.get(1)?.as_str() {
        "kg" | "kgs" => MassUnit::Kg,
        "lb" | "lbs" => MassUnit::Lb,
        _ => MassUnit::G,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn units() {
        assert_eq!(mass_unit_in("850g"), Some(MassUnit::G));
        assert_eq!(mass_unit_in("1,5 kg"), Some(MassUnit::Kg));
        assert_eq!(mass_unit_in("2 lbs"), Some(MassUnit::Lb));
        assert_eq!(mass_unit_in("850"), None);
        assert_eq!(MassUnit::convert(1.0, MassUnit::Kg, MassUnit::G), 1000.0);
    }
}

//! Wanted fields: how a schema field's values are read (its [`Kind`]) and
//! its default ranking direction.

use super::fields::{Concept, KeyInfo, Suffix, key_info, target_concept};
use super::mass::MassUnit;
use super::types::{FieldType, SortOrder};
use crate::vocab::duration::DurUnit;

/// How a target field's values are read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Money,
    Duration(DurUnit),
    Number(Option<MassUnit>),
    Bool,
    Text,
}

#[derive(Debug, Clone)]
pub(super) struct Wanted {
    pub(super) name: String,
    pub(super) ty: FieldType,
    pub(super) info: KeyInfo,
    pub(super) concept: Concept,
    pub(super) kind: Kind,
}

impl Wanted {
    pub(super) fn new(name: &str, ty: FieldType) -> Self {
        let info = key_info(name);
        let concept = target_concept(&info);
        let kind = match ty {
            FieldType::String => Kind::Text,
            FieldType::Boolean => Kind::Bool,
            FieldType::Number | FieldType::Integer => match info.suffix {
                Some(Suffix::Currency(_)) => Kind::Money,
                Some(Suffix::Dur(u)) => Kind::Duration(u),
                Some(Suffix::Mass(m)) => Kind::Number(Some(m)),
                None if concept.is_money() => Kind::Money,
                None if concept.is_duration() => Kind::Duration(concept.default_dur_unit()),
                None => Kind::Number(None),
            },
        };
        Self { name: name.to_string(), ty, info, concept, kind }
    }

    /// A money field of `concept` looked up on behalf of the schema field
    /// `parent` (total-cost components); warnings name the parent.
    pub(super) fn component(concept: Concept, parent: &str) -> Self {
        let name = concept.synonyms().first().copied().unwrap_or("price");
        Self { name: parent.to_string(), ty: FieldType::Number, info: key_info(name), concept, kind: Kind::Money }
    }

    pub(super) fn default_order(&self) -> Option<SortOrder> {
        if self.kind == Kind::Text {
            return None;
        }
        match self.concept {
            Concept::TotalCost | Concept::Price | Concept::Shipping | Concept::Fees | Concept::DeliveryTime => {
                Some(SortOrder::Asc)
            }
            Concept::Warranty | Concept::ReturnWindow | Concept::Rating | Concept::Discount | Concept::InStock => {
                Some(SortOrder::Desc)
            }
            Concept::Other => None,
        }
    }

    /// Position in the default ranking (cost-like first, then benefits).
    pub(super) fn default_priority(&self) -> usize {
        const ORDER: [Concept; 10] = [
            Concept::TotalCost,
            Concept::Price,
            Concept::Shipping,
            Concept::Fees,
            Concept::DeliveryTime,
            Concept::Warranty,
            Concept::ReturnWindow,
            Concept::Rating,
            Concept::Discount,
            Concept::InStock,
        ];
        ORDER.iter().position(|c| *c == self.concept).unwrap_or(ORDER.len())
    }
}

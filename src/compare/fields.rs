//! Field names (folded with [`fold_key`]): unit suffixes (`warranty_months`,
//! `price_vnd`), target concepts and their English + Vietnamese synonyms.

use super::mass::MassUnit;
use crate::vocab::duration::{DurUnit, suffix_unit as duration_suffix};
use crate::vocab::money::currency_code_word;
use crate::vocab::text::fold_key;

/// Whether `norm` (a normalised key) contains `phrase` as whole `_`-separated tokens.
pub(super) fn has_phrase(norm: &str, phrase: &str) -> bool {
    format!("_{norm}_").contains(&format!("_{phrase}_"))
}

/// A unit carried by a field name's last token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Suffix {
    Dur(DurUnit),
    Currency(&'static str),
    Mass(MassUnit),
}

fn suffix_unit(token: &str) -> Option<Suffix> {
    if let Some(unit) = duration_suffix(token) {
        return Some(Suffix::Dur(unit));
    }
    match token {
        "kg" | "kgs" => Some(Suffix::Mass(MassUnit::Kg)),
        "g" | "grams" | "gram" => Some(Suffix::Mass(MassUnit::G)),
        "lb" | "lbs" => Some(Suffix::Mass(MassUnit::Lb)),
        "vnd" | "dong" => Some(Suffix::Currency("VND")),
        other => currency_code_word(other).map(Suffix::Currency),
    }
}

/// A field name analysed for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct KeyInfo {
    /// Normalised full name (`warranty_months`).
    pub norm: String,
    /// Normalised name without its unit suffix (`warranty`); `norm` when none.
    pub base: String,
    /// The unit the suffix names, if any.
    pub suffix: Option<Suffix>,
}

pub(super) fn key_info(name: &str) -> KeyInfo {
    let norm = fold_key(name);
    if let Some((head, last)) = norm.rsplit_once('_')
        && let Some(suffix) = suffix_unit(last)
    {
        let head = head.strip_suffix("_in").unwrap_or(head);
        return KeyInfo { base: head.to_string(), norm: norm.clone(), suffix: Some(suffix) };
    }
    KeyInfo { base: norm.clone(), norm, suffix: None }
}

/// What a target (or raw) field means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Concept {
    TotalCost,
    Price,
    Shipping,
    Fees,
    Discount,
    Warranty,
    ReturnWindow,
    DeliveryTime,
    Rating,
    InStock,
    Other,
}

impl Concept {
    /// Fixed order used to resolve names listed under several concepts.
    pub const ALL: [Concept; 10] = [
        Concept::TotalCost,
        Concept::Price,
        Concept::Shipping,
        Concept::Fees,
        Concept::Discount,
        Concept::Warranty,
        Concept::ReturnWindow,
        Concept::DeliveryTime,
        Concept::Rating,
        Concept::InStock,
    ];

    pub fn is_money(self) -> bool {
        matches!(self, Self::TotalCost | Self::Price | Self::Shipping | Self::Fees | Self::Discount)
    }

    pub fn is_duration(self) -> bool {
        matches!(self, Self::Warranty | Self::ReturnWindow | Self::DeliveryTime)
    }

    /// The unit a duration concept is expressed in when the field name has no suffix.
    pub fn default_dur_unit(self) -> DurUnit {
        match self {
            Self::Warranty => DurUnit::Months,
            _ => DurUnit::Days,
        }
    }

    /// Synonyms (normalised keys), most specific first. The exact target name
    /// and its suffix-less base are always tried before these.
    #[rustfmt::skip]
    pub fn synonyms(self) -> &'static [&'static str] {
        match self {
            Self::TotalCost => &[
                "total_cost", "total", "total_price", "grand_total", "total_amount", "amount_due",
                "total_due", "final_price", "final_cost", "checkout_price", "tong", "tong_tien",
                "tong_cong", "tong_gia", "tong_chi_phi", "tong_thanh_toan", "thanh_tien",
                "thanh_toan", "can_thanh_toan", "gia_cuoi", "gia_cuoi_cung",
            ],
            Self::Price => &[
                "price", "gia", "sale_price", "gia_ban", "gia_khuyen_mai", "gia_km", "gia_sale",
                "gia_uu_dai", "current_price", "offer_price", "deal_price", "unit_price", "don_gia",
                "cost", "gia_tien", "amount", "subtotal", "sub_total", "tam_tinh", "list_price",
                "original_price", "regular_price", "msrp", "gia_goc", "gia_niem_yet",
                "gia_thi_truong",
            ],
            Self::Shipping => &[
                "shipping", "ship", "shipping_fee", "shipping_cost", "shipping_price", "delivery",
                "delivery_fee", "delivery_cost", "delivery_charge", "postage", "freight",
                "phi_ship", "phi_van_chuyen", "phi_giao_hang", "phi_giao", "tien_ship",
                "van_chuyen", "giao_hang", "cuoc_van_chuyen", "cuoc_phi_van_chuyen",
            ],
            Self::Fees => &[
                "fees", "fee", "service_fee", "handling_fee", "other_fees", "extra_fees",
                "surcharge", "tax", "taxes", "vat", "thue", "phi_dich_vu", "phi_khac", "phu_phi",
                "phi_xu_ly", "phi_lap_dat", "installation_fee",
            ],
            Self::Discount => &[
                "discount", "coupon", "voucher", "promo", "promotion", "savings", "rebate",
                "cashback", "giam_gia", "giam", "ma_giam_gia", "khuyen_mai", "uu_dai",
                "chiet_khau", "tiet_kiem", "hoan_tien",
            ],
            Self::Warranty => &[
                "warranty", "warranty_period", "guarantee", "bao_hanh", "thoi_gian_bao_hanh",
                "thoi_han_bao_hanh", "bh",
            ],
            Self::ReturnWindow => &[
                "return", "returns", "return_policy", "return_window", "return_period",
                "returns_policy", "refund", "refund_policy", "doi_tra", "chinh_sach_doi_tra",
                "doi_hang", "tra_hang", "hoan_tra", "doi_tra_hang", "doi_moi",
            ],
            Self::DeliveryTime => &[
                "delivery_time", "eta", "shipping_time", "lead_time", "delivery_estimate",
                "estimated_delivery", "dispatch_time", "giao_trong", "thoi_gian_giao",
                "thoi_gian_giao_hang", "thoi_gian_van_chuyen", "du_kien_giao",
                "du_kien_giao_hang", "delivery", "shipping", "ship", "giao_hang", "van_chuyen",
            ],
            Self::Rating => &[
                "rating", "ratings", "stars", "star", "score", "review_score", "avg_rating",
                "average_rating", "danh_gia", "diem", "diem_danh_gia", "sao", "xep_hang",
            ],
            Self::InStock => &[
                "in_stock", "stock", "availability", "available", "con_hang", "tinh_trang",
                "tinh_trang_hang", "ton_kho", "kho",
            ],
            Self::Other => &[],
        }
    }

    /// Single-token synonyms distinctive enough to match inside longer keys
    /// (`chinh_sach_warranty`). Multi-token synonyms always may.
    fn strong_tokens(self) -> &'static [&'static str] {
        match self {
            Self::Warranty => &["warranty", "guarantee"],
            Self::ReturnWindow => &["return", "returns", "refund"],
            Self::Discount => &["discount", "coupon", "voucher"],
            Self::Rating => &["rating"],
            Self::DeliveryTime => &["eta"],
            _ => &[],
        }
    }

    /// Whether a raw key is a synonym that only means this concept when its
    /// value carries an explicit unit (`"delivery": "2-3 days"` is a delivery
    /// time, `"delivery": 12` is a shipping fee).
    pub fn needs_explicit_unit(self, raw_norm: &str) -> bool {
        self == Self::DeliveryTime && matches!(raw_norm, "delivery" | "shipping" | "ship" | "giao_hang" | "van_chuyen")
    }

    /// Whether `norm` may feed this concept by containing one of its synonyms.
    pub fn contains_synonym(self, norm: &str) -> bool {
        self.synonyms().iter().filter(|s| s.contains('_')).chain(self.strong_tokens()).any(|s| has_phrase(norm, s))
    }
}

/// The concept whose synonym list holds `norm` exactly (first in [`Concept::ALL`]).
pub(super) fn exact_concept(norm: &str) -> Option<Concept> {
    Concept::ALL.into_iter().find(|c| c.synonyms().contains(&norm))
}

/// The concept of a target field name.
pub(super) fn target_concept(info: &KeyInfo) -> Concept {
    let has = |words: &[&str]| words.iter().any(|w| has_phrase(&info.norm, w));
    let time_words = ["time", "days", "day", "ngay", "thoi_gian", "eta", "hours", "weeks"];
    if let Some(Suffix::Dur(_)) = info.suffix {
        // `warranty_months`, `return_days`, `delivery_days`, `shipping_days`.
        for c in [Concept::Warranty, Concept::ReturnWindow, Concept::DeliveryTime] {
            if c.synonyms().contains(&info.base.as_str()) || c.contains_synonym(&info.base) {
                return c;
            }
        }
        if Concept::Shipping.synonyms().contains(&info.base.as_str()) {
            return Concept::DeliveryTime;
        }
        return Concept::Other;
    }
    if let Some(c) = exact_concept(&info.norm).or_else(|| exact_concept(&info.base)) {
        return c;
    }
    if has(&["warranty", "guarantee", "bao_hanh"]) {
        Concept::Warranty
    } else if has(&["return", "returns", "refund", "doi_tra", "tra_hang"]) {
        Concept::ReturnWindow
    } else if has(&["eta", "lead_time", "delivery_time", "thoi_gian_giao"])
        || (has(&["delivery", "shipping", "ship", "giao_hang", "giao"]) && has(&time_words))
    {
        Concept::DeliveryTime
    } else if has(&["total", "tong", "thanh_tien"]) {
        Concept::TotalCost
    } else if has(&["discount", "coupon", "voucher", "giam_gia", "khuyen_mai"]) {
        Concept::Discount
    } else if has(&["shipping", "ship", "delivery", "postage", "freight", "van_chuyen", "giao_hang"]) {
        Concept::Shipping
    } else if has(&["fee", "fees", "tax", "vat", "thue", "phi"]) {
        Concept::Fees
    } else if has(&["price", "gia", "cost"]) {
        Concept::Price
    } else if has(&["rating", "stars", "score", "danh_gia"]) {
        Concept::Rating
    } else if has(&["stock", "available", "availability", "con_hang"]) {
        Concept::InStock
    } else {
        Concept::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn suffixes_and_concepts() {
        let k = key_info("warranty_in_months");
        assert_eq!((k.base.as_str(), k.suffix), ("warranty", Some(Suffix::Dur(DurUnit::Months))));
        assert_eq!(key_info("price_vnd").suffix, Some(Suffix::Currency("VND")));
        assert_eq!(target_concept(&key_info("total_cost")), Concept::TotalCost);
        assert_eq!(target_concept(&key_info("warranty_months")), Concept::Warranty);
        assert_eq!(target_concept(&key_info("return_days")), Concept::ReturnWindow);
        assert_eq!(target_concept(&key_info("delivery_days")), Concept::DeliveryTime);
        assert_eq!(target_concept(&key_info("shipping_fee")), Concept::Shipping);
        assert_eq!(target_concept(&key_info("price_vnd")), Concept::Price);
        assert_eq!(target_concept(&key_info("Thời gian bảo hành")), Concept::Warranty);
        assert_eq!(target_concept(&key_info("battery_hours")), Concept::Other);
        assert_eq!(target_concept(&key_info("color")), Concept::Other);
    }
}

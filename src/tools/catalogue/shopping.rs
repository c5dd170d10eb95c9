//! The shopping skills: extract specs, track a price, compare options,
//! prepare a checkout (never paying without confirmation).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::{FREQUENCY_PATTERN, Money, SkillStatus};
use super::{Decl, declare, needs};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolKind, ToolSpec};

/// Arguments of `shopping_extract_specs`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShoppingExtractSpecsArgs {
    /// The product page.
    #[schemars(url)]
    pub product_url: String,
    /// The category schema to extract into, e.g. `laptop_gaming_v1`.
    #[schemars(length(min = 1))]
    pub category: String,
}

/// `data` of `shopping_extract_specs`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ShoppingExtractSpecsOutput {
    /// The specs, field → value, as the category schema defines them.
    pub spec_json: Map<String, Value>,
    /// 0 to 1: how sure the extraction is (the fields' confidences
    /// averaged over the whole schema, a missing field counting 0).
    pub confidence: f64,
    pub status: SkillStatus,
    /// The category schema used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Per field found, 0 to 1: 0.75 a labelled value on the page, 0.6 read
    /// by the model, 0.5 a pattern in the text...
    #[serde(default)]
    pub field_confidence: BTreeMap<String, f64>,
    /// The unit of each number field (`GB`, `inch`, `kg`...).
    #[serde(default)]
    pub units: BTreeMap<String, String>,
    /// Schema fields the page did not show (never guessed).
    #[serde(default)]
    pub missing_fields: Vec<String>,
    /// What was skipped, converted or read by the model.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Arguments of `shopping_track_price`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShoppingTrackPriceArgs {
    /// The product page.
    #[schemars(url)]
    pub url: String,
    /// Notify when the total (price + shipping − coupons) is at or below
    /// this, in VND; omit to notify on any drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_price_vnd: Option<u64>,
    /// How often to check: `30m`, `6h`, `1d`...
    #[schemars(regex(pattern = FREQUENCY_PATTERN))]
    pub frequency: String,
}

/// `data` of `shopping_track_price`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ShoppingTrackPriceOutput {
    pub watch_id: String,
    /// The price found now (shipping and coupons included when shown).
    pub last_price: Option<Money>,
    pub status: SkillStatus,
}

/// One option to compare.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareItem {
    /// The product page.
    #[schemars(length(min = 1))]
    pub url: String,
    /// The variant to compare (e.g. `16GB/1TB`), when the page has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// Arguments of `shopping_compare_options`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShoppingCompareOptionsArgs {
    /// The options, at least two.
    #[schemars(length(min = 2, max = 10))]
    pub items: Vec<CompareItem>,
    /// The comparison schema, e.g. `shopping_compare_v1` (total cost,
    /// warranty, return days, shipping time).
    #[serde(default = "default_compare_schema")]
    pub schema: String,
    /// What matters most to the user ("cheapest", "longest warranty"...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priorities: Option<String>,
}

fn default_compare_schema() -> String {
    "shopping_compare_v1".to_owned()
}

/// The recommended option and why.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Recommendation {
    /// URL of the recommended option.
    pub url: String,
    pub reason: String,
}

/// `data` of `shopping_compare_options`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ShoppingCompareOptionsOutput {
    /// One row per option, schema field → normalised value (plus `url`).
    pub comparison_table: Vec<Map<String, Value>>,
    pub recommendation: Option<Recommendation>,
    pub status: SkillStatus,
    /// The currency money is compared in (others converted only with the
    /// user's rates, `shopping.fx.USD_VND`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// Offers left out, currencies not converted, the model's rewording skipped.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The option chosen for checkout.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectedOption {
    /// The product page.
    #[schemars(length(min = 1))]
    pub url: String,
    /// The variant to buy, e.g. `16GB/1TB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 99))]
    /// How many.
    pub quantity: u32,
}

fn one() -> u32 {
    1
}

/// Arguments of `shopping_prepare_checkout`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShoppingPrepareCheckoutArgs {
    pub selected_option: SelectedOption,
    /// The delivery address: a files_store id or `file://` ref of a JSON
    /// address, or a profile key (`shopping.delivery`). Omit it to use the
    /// address saved in the user's profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub address_ref: Option<String>,
    /// A coupon code to apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupon_code: Option<String>,
    /// Also place the order ("Đặt hàng" / "Pay"): the gate asks the user
    /// first, always. Default: stop before payment.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub place_order: bool,
    /// How long to wait for the user to solve a CAPTCHA or one-time code
    /// the checkout asks for (default 2 minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1_000, max = 1_800_000))]
    pub challenge_timeout_ms: Option<u32>,
}

/// What the order will cost, as the page in front shows it: the checkout
/// page, or the product page itself when the shop has no checkout page of
/// its own before paying ("Mua ngay").
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CostBreakdown {
    pub items: Money,
    pub shipping: Option<Money>,
    /// Discounts and coupons, as a positive amount.
    pub discount: Option<Money>,
    pub tax: Option<Money>,
    pub total: Money,
    /// The price of one item, when the breakdown was read from the product
    /// page (`items` is this times `quantity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_price: Option<Money>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<u32>,
    /// The variant chosen, as asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The parts the page does not show (`shipping`, `discount`, `tax`,
    /// `total`: a total the page does not show is added up here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// `data` of `shopping_prepare_checkout`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ShoppingPrepareCheckoutOutput {
    /// True when the cart and address are set and only payment remains
    /// (which needs the user's confirmation).
    pub checkout_ready: bool,
    pub final_cost_breakdown: Option<CostBreakdown>,
    pub status: SkillStatus,
    /// True only when `place_order` was asked and the user approved it.
    #[serde(default)]
    pub order_placed: bool,
    /// The address parts typed into the checkout form (`full_name`, `phone`...).
    #[serde(default)]
    pub address_filled: Vec<String>,
    /// Steps declined or skipped, fields not found, the challenge handed over.
    #[serde(default)]
    pub notes: Vec<String>,
}

// Scopes of the shopping skills, derived defensively from what they do:
// - extract_specs, compare_options: read pages only → READ_ONLY low.
// - track_price: creates a watch, like watch_create → READ_ONLY low.
// - prepare_checkout: changes the cart and may lead to paying; it must
//   never pay without confirmation → PAYMENT high, confirm.
pub(super) fn tools() -> Vec<ToolSpec> {
    use Risk::*;
    use Scope::*;
    let skill = |name, scope, risk, confirm, needs, description| Decl {
        name,
        kind: ToolKind::Skill,
        scope,
        risk,
        confirm,
        needs: Some(needs).filter(|n: &&str| !n.is_empty()),
        description,
    };
    vec![
        declare::<ShoppingExtractSpecsArgs, ShoppingExtractSpecsOutput>(skill(
            "shopping_extract_specs",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Extract a product's specs from its page into a category schema: `laptop_gaming_v1` (CPU, GPU, RAM, storage, screen, weight...), `phone_v1`, `headphones_v1`, `tv_v1`, `home_appliance_v1`; numbers in the schema's units (GB, inch, kg). Returns the specs, a confidence per field and overall, and the fields missing.",
        )),
        declare::<ShoppingTrackPriceArgs, ShoppingTrackPriceOutput>(skill(
            "shopping_track_price",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Track a product's price, shipping and coupons on a schedule and notify the user when the total drops to a target in VND. Returns the watch id and the current price.",
        )),
        declare::<ShoppingCompareOptionsArgs, ShoppingCompareOptionsOutput>(skill(
            "shopping_compare_options",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Compare several product offers on total cost, warranty, returns and delivery, normalised to one schema. Returns a comparison table and a recommendation.",
        )),
        declare::<ShoppingPrepareCheckoutArgs, ShoppingPrepareCheckoutOutput>(skill(
            "shopping_prepare_checkout",
            Payment,
            High,
            true,
            needs::RUNS_NOW,
            "Add the chosen option to the cart and fill the delivery address, up to the payment step. Never pays without the user's confirmation; CAPTCHA/OTP go to the user. Returns whether checkout is ready and the final cost breakdown.",
        )),
    ]
}

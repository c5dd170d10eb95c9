//! The travel skills: plan an itinerary, search options, fill forms,
//! monitor a trip.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::{FREQUENCY_PATTERN, Money, SkillStatus};
use super::{Decl, declare, needs};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolKind, ToolSpec};

/// A date range.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateRange {
    /// First day (`YYYY-MM-DD`).
    #[schemars(extend("format" = "date"))]
    pub from: String,
    /// Last day (`YYYY-MM-DD`), not before `from`.
    #[schemars(extend("format" = "date"))]
    pub to: String,
}

/// Arguments of `travel_plan_itinerary`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TravelPlanItineraryArgs {
    /// Where the trip starts: IATA airport code (`HAN`) or city.
    #[schemars(length(min = 1))]
    pub origin: String,
    /// Where to go: IATA airport code (`NRT`) or city.
    #[schemars(length(min = 1))]
    pub destination: String,
    /// Travel dates.
    pub dates: DateRange,
    /// Total budget in VND (flights, stay, local costs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_vnd: Option<u64>,
    /// Number of travellers.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 20))]
    pub travellers: u32,
    /// Wishes and constraints in the user's words ("no red-eye flights",
    /// "onsen one night"); saved preferences are read from the profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Search sites for this trip only, as URL templates (see
    /// `travel_search_options`); default: the profile's `travel.preferred_sites`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<String>,
}

fn one() -> u32 {
    1
}

/// One day of an itinerary.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ItineraryDay {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Where the night is spent.
    pub location: String,
    /// What happens that day, in order (transport, visits, meals).
    pub items: Vec<String>,
    /// Estimated cost of the day in VND.
    pub est_cost_vnd: Option<u64>,
}

/// `data` of `travel_plan_itinerary`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TravelPlanItineraryOutput {
    pub itinerary: Vec<ItineraryDay>,
    /// The choices made and what they cost (price vs time vs comfort).
    pub tradeoffs: Vec<String>,
    /// 0 to 1: how well the plan meets the constraints (the weighted sum of `score_parts`).
    pub plan_score: f64,
    pub status: SkillStatus,
    /// The bookings the plan is built on (flight, stays), checked by code.
    #[serde(default)]
    pub bookings: Vec<ItineraryBooking>,
    /// The parts of `plan_score`, each with its weight and why.
    #[serde(default)]
    pub score_parts: Vec<ScorePart>,
    /// The plan's estimated total in VND: bookings plus the days' costs.
    #[serde(default)]
    pub total_cost_vnd: Option<u64>,
    /// What was checked, repaired, left out or guessed.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A booking of an itinerary: a flight or a stay, from `travel_search_options`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ItineraryBooking {
    /// `flight` or `hotel`.
    pub kind: TravelOptionType,
    /// First day (`YYYY-MM-DD`): departure, check-in.
    pub from: String,
    /// Last day (`YYYY-MM-DD`): return, check-out.
    pub to: String,
    /// The option's one-line summary.
    pub summary: String,
    pub url: String,
    /// Its cost in VND (a stay's share when it covers part of the option's nights).
    pub cost_vnd: Option<u64>,
}

/// One part of an itinerary's score.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ScorePart {
    /// `budget`, `days` or `bookings`.
    pub name: String,
    /// 0 to 1.
    pub score: f64,
    /// Its weight in `plan_score` (the weights add up to 1).
    pub weight: f64,
    /// Why it scored so.
    pub why: String,
}

/// What `travel_search_options` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TravelOptionType {
    Flight,
    Hotel,
}

/// Arguments of `travel_search_options`. Flights need `route`, hotels
/// `location` (checked at execution).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TravelSearchOptionsArgs {
    /// `flight` or `hotel`.
    #[serde(rename = "type")]
    pub kind: TravelOptionType,
    /// Flights: origin and destination IATA codes joined by `-`, e.g. `HAN-NRT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// Hotels: city or area, e.g. `Shinjuku, Tokyo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Flights: departure day; hotels: check-in day (`YYYY-MM-DD`).
    #[schemars(extend("format" = "date"))]
    pub date: String,
    /// Flights: return day for a round trip; hotels: check-out day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date"))]
    pub return_date: Option<String>,
    /// Number of passengers or guests.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 20))]
    pub pax: u32,
    /// Upper price bound in VND.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_price_vnd: Option<u64>,
    /// How many options to return.
    #[serde(default = "default_options")]
    #[schemars(range(min = 1, max = 30))]
    pub max_results: u32,
    /// Sites to search, as URL templates with `{from}` `{to}` `{date}`
    /// `{return_date}` `{pax}` `{location}` (e.g.
    /// `https://flights.example/search?from={from}&to={to}&date={date}&pax={pax}`);
    /// default: the profile's `travel.preferred_sites`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<String>,
}

fn default_options() -> u32 {
    10
}

/// One flight or hotel option, normalised.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TravelOption {
    /// Where it was found (site or provider).
    pub source: String,
    pub url: String,
    /// One line: carrier/hotel, times, stops, room.
    pub summary: String,
    /// Total price with taxes and fees for all travellers.
    pub total_price: Option<Money>,
    /// The normalised terms (baggage, refundability, change fee...), by name.
    pub terms: Map<String, Value>,
}

/// `data` of `travel_search_options`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TravelSearchOptionsOutput {
    pub options: Vec<TravelOption>,
    /// The term names every option was normalised to.
    pub normalized_terms: Vec<String>,
    pub status: SkillStatus,
    /// Sources that failed, search left out, prices not comparable.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Arguments of `travel_fill_forms`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TravelFillFormsArgs {
    /// The form to fill (visa application, booking, arrival card).
    #[schemars(url)]
    pub form_url: String,
    /// Documents to upload where the form asks: files_store ids or `file://` refs.
    #[serde(default)]
    pub docs: Vec<String>,
    /// Profile keys to fill from (e.g. `name`, `dob`, `passport_no`).
    #[serde(default)]
    pub profile_keys: Vec<String>,
    /// Extra values for this form only, field label → value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_fields: Option<Map<String, Value>>,
    /// Submit once the form is ready, after the user confirms
    /// (`request_user_confirmation`); default: stop when ready.
    #[serde(default)]
    pub submit: bool,
}

/// `data` of `travel_fill_forms`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TravelFillFormsOutput {
    /// `file://` ref of a screenshot of the filled form, for the user to review.
    pub filled_preview_ref: String,
    /// True when every required field is filled and the form can be
    /// submitted once the user confirms.
    pub submit_ready: bool,
    /// Required fields the skill could not fill.
    pub missing_fields: Vec<String>,
    pub status: SkillStatus,
    /// The fields filled (labels), uploads included.
    #[serde(default)]
    pub filled_fields: Vec<String>,
    /// Steps the user refused (an upload, a sensitive value, the submit).
    #[serde(default)]
    pub denied: Vec<String>,
    /// True when the form was submitted (after the user's confirmation).
    #[serde(default)]
    pub submitted: bool,
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Arguments of `travel_monitor_trip`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TravelMonitorTripArgs {
    /// Bookings to monitor: files_store ids or `file://` refs of booking
    /// confirmations, or booking URLs.
    #[schemars(length(min = 1))]
    pub booking_refs: Vec<String>,
    /// How often to check: `30m`, `1h`, `1d`...
    #[schemars(regex(pattern = FREQUENCY_PATTERN))]
    pub frequency: String,
}

/// `data` of `travel_monitor_trip`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TravelMonitorTripOutput {
    /// The first page's watch (every one is in `watch_ids` and `watches`).
    pub watch_id: String,
    /// Changes found so far (delay, gate change, booking status), on every page.
    pub alerts: Vec<String>,
    pub status: SkillStatus,
    /// One watch per booking or flight-status page, in the order given.
    #[serde(default)]
    pub watch_ids: Vec<String>,
    /// Each page's watch with its own alerts.
    #[serde(default)]
    pub watches: Vec<TripWatch>,
}

/// One page `travel_monitor_trip` watches.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TripWatch {
    pub watch_id: String,
    /// The booking or flight-status page.
    pub url: String,
    /// Changes found on this page so far.
    pub alerts: Vec<String>,
}

// Scopes of the travel skills, derived defensively from what they do
// (tools.md's skill table gives none):
// - plan_itinerary, search_options: read preferences and the web only → READ_ONLY low.
// - fill_forms: ends in a submit (visa, booking) and may upload documents;
//   confirmation before submit is mandatory → SUBMIT high, confirm.
// - monitor_trip: creates a watch, like watch_create → READ_ONLY low.
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
        declare::<TravelPlanItineraryArgs, TravelPlanItineraryOutput>(skill(
            "travel_plan_itinerary",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Plan a trip day by day within dates and a VND budget: the flight and stay from `travel_search_options`, the days written from the user's saved preferences and `notes`, then checked (dates inside the trip, no overlapping stays, total within budget). Returns the itinerary, the bookings, the trade-offs made and a plan score with its parts explained.",
        )),
        declare::<TravelSearchOptionsArgs, TravelSearchOptionsOutput>(skill(
            "travel_search_options",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Find flight options for a `route` (`HAN-NRT`) or hotel options in a `location`, for a date, on the user's preferred sites (profile `travel.preferred_sites`, URL templates) and web search, and normalise them (total price with fees, duration, stops, baggage, refundability) so they compare fairly, cheapest first. Books nothing.",
        )),
        declare::<TravelFillFormsArgs, TravelFillFormsOutput>(skill(
            "travel_fill_forms",
            Submit,
            High,
            true,
            needs::RUNS_NOW,
            "Fill a visa, booking or arrival-card form from the user's profile, `extra_fields` and stored documents (uploading them where asked; each upload and sensitive value is confirmed). Submits only with `submit: true`, after the user confirms. Returns a preview of the filled form, whether it is ready to submit, and the steps refused.",
        )),
        declare::<TravelMonitorTripArgs, TravelMonitorTripOutput>(skill(
            "travel_monitor_trip",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Watch booked trips for delays, gate changes and booking-status changes, and notify the user. Returns the watch id and any alerts so far.",
        )),
    ]
}

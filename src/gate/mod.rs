//! The gatekeeper: every call's effective scope is computed in code from
//! the real action (`action`, `classify`, `exfil`), a policy turns it into a
//! decision (`policy`), the user is asked when the decision is Ask
//! (`confirm`), and every decision is written to the audit log (`audit`).
//! Nothing is paid, submitted, published, deleted or leaked without the
//! user; no answer, or no one to ask, is a refusal.

pub mod action;
pub mod audit;
pub mod check;
pub mod classify;
pub mod confirm;
pub mod exfil;
pub mod fence;
pub mod foreign;
pub mod lasting;
pub mod policy;
pub mod request;
pub mod secrets;

pub use confirm::{
    ApproveAll, ChallengeAnswer, ChallengeRequest, ConfirmField, ConfirmationRequest, Confirmer, DenyAll,
};

//! `request_user_confirmation`: the model asks the user itself, through the
//! same channel as the gate's own questions. The summary is the model's
//! words, so it is shown as such; the fields are masked like the gate's.

use std::time::Duration;

use crate::context::CallContext;
use crate::error::Result;
use crate::handler::Services;
use crate::tools::catalogue::safety::{ConfirmResultV1, RequestUserConfirmationArgs};

pub async fn request(ctx: &Services, cx: &CallContext, args: RequestUserConfirmationArgs) -> Result<ConfirmResultV1> {
    let within = Duration::from_millis(args.timeout_ms.into());
    ctx.gate.ask_for_model(cx, &args, within).await
}

//! The Pollux policy (placeholder while being written).
/// Placeholder.
#[derive(Debug, Default)]
pub struct PolluxPolicy;
/// Placeholder.
#[derive(Debug, Default)]
pub struct PolluxPolicyConfig;

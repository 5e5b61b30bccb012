//! Claude Code's hook events, by the names its settings use. Every one of them loads (a
//! Claude Code user's file names them); the ones bash-agent has no moment for (teammates,
//! worktrees, MCP elicitation, ...) never fire, and the start-up warning says so once.
/// One list makes the enum, `ALL` and the names (a name is the variant's own spelling), so
/// adding an event cannot leave one of the three behind.
macro_rules! hook_events {
    ($($event:ident),* $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum HookEvent {
            $($event,)*
        }

        impl HookEvent {
            pub const ALL: [HookEvent; [$(stringify!($event)),*].len()] = [$(HookEvent::$event),*];

            pub fn name(self) -> &'static str {
                match self {
                    $(HookEvent::$event => stringify!($event),)*
                }
            }
        }
    };
}

hook_events![
    PreToolUse,
    PermissionRequest,
    PostToolUse,
    PostToolUseFailure,
    UserPromptSubmit,
    Notification,
    Stop,
    SubagentStart,
    SubagentStop,
    PreCompact,
    PostCompact,
    SessionStart,
    SessionEnd,
    Setup,
    // Known to Claude Code, never fired here.
    PermissionDenied,
    PostToolBatch,
    UserPromptExpansion,
    StopFailure,
    InstructionsLoaded,
    ConfigChange,
    CwdChanged,
    FileChanged,
    WorktreeCreate,
    WorktreeRemove,
    TeammateIdle,
    TaskCreated,
    TaskCompleted,
    Elicitation,
    ElicitationResult,
];

use HookEvent::*;

impl HookEvent {
    pub fn parse(s: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == s)
    }

    /// Why the event never fires in bash-agent (None: it fires).
    pub fn never_fires(self) -> Option<&'static str> {
        Some(match self {
            Setup => "bash-agent has no --init/--maintenance run",
            PermissionDenied => "bash-agent has no auto-mode classifier",
            PostToolBatch => "tool calls are not batched",
            UserPromptExpansion => "not fired for custom commands",
            StopFailure => "not fired on API errors",
            InstructionsLoaded | ConfigChange | CwdChanged | FileChanged => {
                "bash-agent does not watch files"
            }
            WorktreeCreate | WorktreeRemove => "bash-agent makes no worktrees",
            TeammateIdle | TaskCreated | TaskCompleted => "bash-agent has no agent teams",
            Elicitation | ElicitationResult => "bash-agent's MCP client does not elicit",
            _ => return None,
        })
    }

    /// Exit code 2 blocks (with stderr as the reason) only where Claude Code's does (its
    /// hooks reference; PreCompact's block stops the compaction); on the other events
    /// stderr is shown to the user and nothing is stopped.
    pub fn exit2_blocks(self) -> bool {
        matches!(
            self,
            PreToolUse
                | PermissionRequest
                | PostToolUse
                | PostToolUseFailure
                | UserPromptSubmit
                | Stop
                | SubagentStop
                | PreCompact
        )
    }

    /// Events whose answer decides whether something may happen: an answer cut at the
    /// output cap is read as a refusal there, never as nothing said.
    pub fn decides(self) -> bool {
        matches!(self, PreToolUse | PermissionRequest | UserPromptSubmit)
    }
}

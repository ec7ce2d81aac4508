//! [`Handles`]: the launch handles an MCP server holds for the windows it launched.

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::ground::limits::MAX_LAUNCH_HANDLES;
use crate::ground::Secret;

/// Launch handles this server holds, so `set_window` can use them and `list_terminals` can say
/// `owned`. At most [`MAX_LAUNCH_HANDLES`]; the oldest is forgotten first. A handle is kept with
/// the scope of the client that launched it and used only for a client of the same scope.
#[derive(Debug, Default)]
pub struct Handles(Mutex<VecDeque<HeldHandle>>);

#[derive(Debug)]
struct HeldHandle {
    host: String,
    id: u64,
    scope: Option<String>,
    handle: Secret,
}

impl Handles {
    /// Keeps `handle` for window `id` of `host`, launched by a client of `scope`.
    pub fn insert(&self, host: &str, id: u64, scope: Option<String>, handle: Secret) {
        let mut list = self.0.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|h| !(h.host == host && h.id == id));
        if list.len() >= MAX_LAUNCH_HANDLES {
            list.pop_front();
        }
        list.push_back(HeldHandle {
            host: host.to_owned(),
            id,
            scope,
            handle,
        });
    }

    /// The handle of window `id` of `host`, for a client of `scope`.
    pub fn get(&self, host: &str, id: u64, scope: &Option<String>) -> Option<Secret> {
        let list = self.0.lock().unwrap_or_else(|e| e.into_inner());
        list.iter()
            .find(|h| h.host == host && h.id == id && &h.scope == scope)
            .map(|h| h.handle.clone())
    }
}

//! [`FrameCache`]: the frames a window answered recently, for `/mcp/read`'s `since` deltas.

use std::collections::VecDeque;
use std::sync::Arc;

use wterm_core::{Frame, ScreenHash};

use crate::ground::limits::{FRAME_CACHE_BYTES, FRAME_CACHE_FRAMES};

/// The frames a window answered recently, by `content_hash`, for `since` deltas.
#[derive(Debug, Default)]
pub struct FrameCache {
    frames: VecDeque<Arc<Frame>>,
    bytes: usize,
}

impl FrameCache {
    /// Remembers `frame`, forgetting the oldest beyond [`FRAME_CACHE_FRAMES`] or
    /// [`FRAME_CACHE_BYTES`].
    pub fn remember(&mut self, frame: Arc<Frame>) {
        if let Some(i) = self.frames.iter().position(|f| {
            f.content_hash == frame.content_hash && f.history_lines == frame.history_lines
        }) {
            if let Some(old) = self.frames.remove(i) {
                self.bytes -= old.text.len();
            }
        }
        self.bytes += frame.text.len();
        self.frames.push_back(frame);
        while self.frames.len() > FRAME_CACHE_FRAMES || self.bytes > FRAME_CACHE_BYTES {
            match self.frames.pop_front() {
                Some(old) => self.bytes -= old.text.len(),
                None => break,
            }
        }
    }

    /// A remembered frame with this `content_hash` and the same shape as `like` (rows and
    /// history rows).
    pub fn find(&self, hash: &str, like: &Frame) -> Option<Arc<Frame>> {
        let hash = ScreenHash::from_hex(hash)?;
        self.frames
            .iter()
            .rev()
            .find(|f| {
                f.content_hash == hash
                    && f.rows.len() == like.rows.len()
                    && f.history_lines == like.history_lines
            })
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wterm_core::View;

    #[test]
    fn the_cache_finds_by_hash_and_shape_and_stays_bounded() {
        let mut t = wterm_core::Terminal::new(wterm_core::Size::new(3, 10), 10);
        let mut cache = FrameCache::default();
        let a = Arc::new(t.frame(View::Screen));
        cache.remember(a.clone());
        t.feed(b"x");
        let b = Arc::new(t.frame(View::Screen));
        assert!(cache.find(&a.content_hash.to_hex(), &b).is_some());
        assert!(cache.find(&b.content_hash.to_hex(), &b).is_none());
        assert!(cache.find("zz", &b).is_none());
        for i in 0..(FRAME_CACHE_FRAMES * 2) {
            t.feed(format!("{i}").as_bytes());
            cache.remember(Arc::new(t.frame(View::Screen)));
        }
        assert_eq!(cache.frames.len(), FRAME_CACHE_FRAMES);
        assert!(cache.find(&a.content_hash.to_hex(), &b).is_none());
    }
}

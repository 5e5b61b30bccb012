//! A spinner with elapsed seconds on stderr while waiting for the first token
//! (one-shot human mode on a TTY only).
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub struct Spinner {
    enabled: bool,
    state: Mutex<Option<(Arc<AtomicBool>, JoinHandle<()>)>>,
}

impl Spinner {
    pub fn new(enabled: bool) -> Spinner {
        Spinner {
            enabled,
            state: Mutex::new(None),
        }
    }

    pub fn start(&self) {
        if !self.enabled {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.is_some() {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let h = std::thread::spawn(move || {
            let frames = ['|', '/', '-', '\\'];
            let t0 = Instant::now();
            let mut i = 0;
            while !s2.load(Ordering::SeqCst) {
                let _ = write!(
                    std::io::stderr(),
                    "\r\x1b[90m{} waiting for the model… {}s\x1b[0m",
                    frames[i % 4],
                    t0.elapsed().as_secs()
                );
                i += 1;
                std::thread::park_timeout(Duration::from_millis(100));
            }
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        });
        *st = Some((stop, h));
    }

    pub fn stop(&self) {
        let taken = self.state.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((flag, h)) = taken {
            flag.store(true, Ordering::SeqCst);
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

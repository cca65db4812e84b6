// `stdout` is a C global; reading it once at start-up is safe, and this import lets Swift 6 accept it.
@preconcurrency import Glibc

/// In an app the device daemon launched, standard output is the app's log file: line-buffered, the log shows what
/// happened as it happens, not when a 4 KiB buffer fills.
func makeStandardOutputLineBuffered() {
    setvbuf(stdout, nil, _IOLBF, 0)
}

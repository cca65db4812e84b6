/// Exponential backoff with jitter, for anything that retries or reconnects.
public enum Backoff {
    /// The wait before retry `attempt` (1 for the first): its ceiling doubles from `initial` up to `maximum`,
    /// and the wait is drawn at random from the upper half of the ceiling, so that clients that failed together
    /// (a gateway restart drops every device at once) do not all come back at the same moment.
    public static func wait(attempt: Int, initial: Duration, maximum: Duration) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(initial * (1 << exponent), maximum)
        return ceiling * Double.random(in: 0.5...1.0)
    }
}

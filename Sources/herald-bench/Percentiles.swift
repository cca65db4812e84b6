/// Order statistics of a set of durations, printed in milliseconds.
struct Percentiles {
    private let sorted: [Duration]

    init(_ samples: [Duration]) { sorted = samples.sorted() }

    var count: Int { sorted.count }

    /// The sample at quantile `q` (0…1), nearest rank.
    func at(_ q: Double) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// `p50 1.23 ms  p90 …  p99 …  p99.9 …  max …`
    var summary: String {
        let marks: [(String, Double)] = [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999), ("max", 1)]
        return marks.map { "\($0.0) \(Self.milliseconds(at($0.1))) ms" }.joined(separator: "  ")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return value < 10 ? String(format2: value) : String(Int(value.rounded()))
    }
}

extension String {
    /// Two decimals without Foundation's formatters.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

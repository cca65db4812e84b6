// The delivery activity's data, shared by the app and its widget extension (on iOS, a file in both targets).
import ActivityKit

public struct DeliveryAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable {
        /// 0…1, drawn as a progress bar.
        public var progress: Double
        public var status: String
        public var eta: String

        public init(progress: Double, status: String, eta: String) {
            self.progress = progress
            self.status = status
            self.eta = eta
        }
    }

    /// Shown as the activity's title.
    public var name: String

    public init(name: String) {
        self.name = name
    }
}

import HeraldStore
import HeraldWire

extension Rejection {
    /// The answer when the store fails a read or write a request needed: 503 while it cannot be reached or is held
    /// by another process (a retry may succeed), else 500.
    static func storeFailure(_ error: any Error) -> Rejection {
        if let error = error as? StoreError, error.code == .unavailable || error.code == .busy {
            return Rejection(.serviceUnavailable, "the store cannot be reached; retry later")
        }
        return Rejection(.internalServerError, "the store cannot be read")
    }
}

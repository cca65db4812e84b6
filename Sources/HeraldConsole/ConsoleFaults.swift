import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird

/// The fault rules on the admin API (docs/faults.md): `GET /v1/faults` lists them with what each took on this gateway,
/// `POST /v1/faults` adds one (the JSON `herald faults add --json` prints), `DELETE /v1/faults/ID` removes one and
/// `DELETE /v1/faults` all. A change is in force when its answer comes.
struct ConsoleFaults: Sendable {
    let store: any Store
    let faults: FaultRules
    let clock: any WallClock

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("faults") { _, _ in list() }
        group.post("faults") { request, _ in try await add(try await request.body.collect(upTo: 64 * 1024)) }
        group.delete("faults/:id") { _, context in try await remove(context.parameters.get("id") ?? "") }
        group.delete("faults") { _, _ in try await clear() }
    }

    /// `{"honoured": true, "rules": [{…rule, "taken": 2}]}`; `honoured` is false on a production gateway started without
    /// `--allow-faults` (its rules are kept, and not applied).
    private func list() -> Response {
        let rules = faults.rules.map { applied in
            var fields = applied.rule.json.objectValue ?? [:]
            fields["taken"] = .integer(Int64(applied.taken))
            return JSONValue.object(fields)
        }
        return AdminAPI.json(.ok, .object(["honoured": .bool(faults.enabled), "rules": .array(rules)]))
    }

    private func add(_ body: ByteBuffer) async throws -> Response {
        guard let json = try? JSONValue.parse(Data(body.readableBytesView)) else {
            return AdminAPI.error(.badRequest, "BadRule", "send a fault rule as a JSON object (docs/faults.md)")
        }
        let rule: FaultRule
        do {
            rule = try FaultRule(json: json, now: clock.now())
        } catch {
            return AdminAPI.error(.badRequest, "BadRule", error.message)
        }
        try await store.saveFaultRule(rule)
        await faults.reload()
        var fields = rule.json.objectValue ?? [:]
        fields["honoured"] = .bool(faults.enabled)
        if !faults.enabled {
            fields["warning"] = .string("this gateway plays production without --allow-faults: the rule is kept and not applied")
        }
        return AdminAPI.json(.created, .object(fields))
    }

    private func remove(_ id: String) async throws -> Response {
        guard try await store.removeFaultRule(id: id) else {
            return AdminAPI.error(.notFound, "NoSuchRule", "no fault rule \(id); GET /v1/faults lists the rules in force")
        }
        await faults.reload()
        return Response(status: .noContent)
    }

    private func clear() async throws -> Response {
        let removed = try await store.removeFaultRules(keepingPersistent: false, now: clock.now())
        await faults.reload()
        return AdminAPI.json(.ok, .object(["removed": .integer(Int64(removed))]))
    }
}

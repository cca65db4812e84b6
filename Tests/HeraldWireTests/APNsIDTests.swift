import Foundation
import HeraldWire
import Testing

@Suite struct APNsIDTests {
    @Test func formatsCanonicalLowercaseAndParsesBack() throws {
        let id = try #require(UUID(uuidString: "123E4567-E89B-12D3-A456-426655440000"))
        #expect(APNsID.format(id) == "123e4567-e89b-12d3-a456-426655440000")
        #expect(APNsID.parse("123E4567-E89B-12D3-A456-426655440000") == id)
        #expect(APNsID.parse(APNsID.format(id)) == id)
        for _ in 0..<100 {
            let random = UUID()
            #expect(APNsID.format(random) == random.uuidString.lowercased())
        }
    }

    @Test(arguments: [
        "", "123e4567", "123e4567-e89b-12d3-a456-42665544000", "123e4567-e89b-12d3-a456-4266554400000",
        "123e4567xe89b-12d3-a456-426655440000", "123e4567-e89b-12d3-a456-42665544000g", "123e4567e89b12d3a456426655440000",
    ])
    func refusesAnythingButTheCanonicalForm(_ text: String) {
        #expect(APNsID.parse(text) == nil)
    }

    @Test func generatedIDsAreVersion7UniqueAndTimeOrdered() {
        let earlier = APNsID.format(APNsID.generate(at: Date(timeIntervalSince1970: 1_800_000_000)))
        let later = APNsID.format(APNsID.generate(at: Date(timeIntervalSince1970: 1_800_000_001)))
        #expect(earlier < later)
        #expect(Array(earlier)[14] == "7")
        #expect(["8", "9", "a", "b"].contains(Array(earlier)[19]))
        let many = Set((0..<10_000).map { _ in APNsID.generate() })
        #expect(many.count == 10_000)
    }
}

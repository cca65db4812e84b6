import Testing
import UserNotificationsUI

@testable import HeraldDevice

/// A content extension's `preferredContentSize` decides its view's height on every surface, within bounds; the width
/// is the surface's.
@Suite struct ContentViewHeightTests {
    @Test(arguments: [(300.0, 300), (0.5, 44), (10_000, 720), (44, 44), (720, 720), (99.6, 100)])
    func thePageDrawsTheHeightAskedWithinBounds(asked: Double, pixels: Int) {
        #expect(ContentViewHeight.pagePixels(for: .init(width: 9_999, height: asked)) == pixels)
    }

    @Test(arguments: [0.0, -5, .nan, .infinity])
    func noHeightOrANonsenseOneIsNoneAsked(height: Double) {
        #expect(ContentViewHeight.pagePixels(for: .init(width: 320, height: height)) == nil)
        #expect(ContentViewHeight.terminalRows(for: .init(width: 320, height: height)) == nil)
        #expect(ContentViewHeight.pagePixels(for: nil) == nil)
    }

    @Test(arguments: [(300.0, 14), (60, 3), (1, 2), (10_000, 33)])
    func theTerminalDrawsRowsOf22Points(asked: Double, rows: Int) {
        #expect(ContentViewHeight.terminalRows(for: .init(width: 0, height: asked)) == rows)
    }

    @Test func fewerLinesArePaddedAndMoreAreCutWithAWord() {
        #expect(ContentViewHeight.fit(["a"], rows: 3) == ["a", "", ""])
        #expect(ContentViewHeight.fit(["a", "b"], rows: 2) == ["a", "b"])
        #expect(ContentViewHeight.fit(["a", "b", "c", "d"], rows: 2) == ["a", "… 3 more lines below the view's height"])
        #expect(ContentViewHeight.fit(["a", "b", "c"], rows: 2) == ["a", "… 2 more lines below the view's height"])
    }
}

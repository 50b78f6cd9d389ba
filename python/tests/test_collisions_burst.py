"""collisions_burst: the written burst rule and the read/write page overlap,
checked on hand-made rows."""

from detour.reproduce.collisions_burst import PAGE_BYTES, Request, burst_shape, read_msr_csv, read_write_overlap


def test_burst_shape_splits_at_gaps_longer_than_idle():
    # arrivals 0, 10, 20 | gap 1000 | 1020, 1030 | gap 5000 | 6030
    t = [0.0, 10.0, 20.0, 1020.0, 1030.0, 6030.0]
    s = burst_shape(t, idle_us=100.0)
    assert s.bursts == 3
    assert s.mean_on_us == (20.0 + 10.0 + 0.0) / 3
    assert s.mean_off_us == (1000.0 + 5000.0) / 2
    assert s.requests_per_burst == 2.0
    # a gap equal to idle_us does not split
    assert burst_shape([0.0, 100.0], idle_us=100.0).bursts == 1


def test_read_write_overlap_counts_pages():
    p = PAGE_BYTES
    reqs = [
        Request(0.0, False, 0, 2 * p),  # reads pages 0, 1
        Request(1.0, True, p, 1),  # writes page 1
        Request(2.0, True, 5 * p + 10, p),  # writes pages 5, 6
    ]
    assert read_write_overlap(reqs) == (2, 3, 1)


def test_read_msr_csv_units():
    text = "128166385295514663,hm,0,Write,16384,4096,2833\n128166385295524663,hm,0,Read,0,512,10\n"
    r = read_msr_csv(text)
    assert [x.write for x in r] == [True, False]
    assert r[1].t_us - r[0].t_us == 1000.0  # 10,000 x 100 ns
    assert (r[0].offset, r[0].size) == (16384, 4096)

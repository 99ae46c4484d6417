def scores_changed(*, standing_ids):
    pass

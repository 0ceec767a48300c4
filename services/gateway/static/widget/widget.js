// PolicyPal support widget
